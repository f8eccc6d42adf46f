package dev.eosink.bench;

/** One measured case: a writer at a parallelism and checkpoint interval; run once per round. */
final class Spec {

    enum Purpose {
        /** A line of latest.csv. */
        THROUGHPUT,
        /** Only for the heap comparison (long checkpoint interval). */
        HEAP
    }

    final Writer writer;
    final int parallelism;
    final long intervalMs;
    final Purpose purpose;

    Spec(Writer writer, int parallelism, long intervalMs, Purpose purpose) {
        this.writer = writer;
        this.parallelism = parallelism;
        this.intervalMs = intervalMs;
        this.purpose = purpose;
    }

    String label() {
        return String.format(
                "%-6s %-15s p%d %s", writer.workload.id(), writer.id, parallelism, interval(intervalMs));
    }

    static String interval(long ms) {
        return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
    }
}
