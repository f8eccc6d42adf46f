package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The limit: the same rows, made by the same generator, streamed with binary {@code COPY ... FROM
 * STDIN} over pgjdbc's CopyManager, no Flink. At parallelism p, p connections and threads each copy
 * one contiguous p-th of the ids, each in one transaction (autocommit).
 */
final class RawCopy {

    private static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    private static final int BUFFER = 64 * 1024;

    private RawCopy() {}

    /** Copies all rows; records in {@link Probe} the first row's and the last commit's times. */
    static void run(String url, Properties props, String table, long rows, int parallelism) throws Exception {
        List<Connection> connections = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(parallelism);
        try {
            for (int i = 0; i < parallelism; i++) {
                connections.add(DriverManager.getConnection(url, props)); // start-up, not timed
            }
            List<Future<Void>> parts = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                Connection c = connections.get(i);
                long from = rows * i / parallelism;
                long to = rows * (i + 1) / parallelism;
                Callable<Void> part = () -> {
                    copy(c, table, from, to, rows);
                    return null;
                };
                parts.add(pool.submit(part));
            }
            for (Future<Void> f : parts) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private static void copy(Connection c, String table, long from, long to, long rows) throws Exception {
        CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + table + " (" + Workload.COLUMNS + ") FROM STDIN (FORMAT binary)");
        byte[] buf = new byte[BUFFER];
        int n = 0;
        System.arraycopy(HEADER, 0, buf, 0, HEADER.length);
        n += HEADER.length;
        boolean first = true;
        try {
            for (long i = from; i < to; i++) {
                BenchRow r = Workload.row(Case.APPEND, i, rows);
                if (first) { // the same moment as in the Flink jobs: the first row is made, not yet sent
                    Probe.firstRow();
                    first = false;
                }
                byte[] k = r.k.getBytes(StandardCharsets.UTF_8);
                if (n + 46 + k.length > buf.length) {
                    in.writeToCopy(buf, 0, n);
                    n = 0;
                }
                n = int16(buf, n, 4);
                n = int32(buf, n, 8);
                n = int64(buf, n, r.id);
                n = int32(buf, n, k.length);
                System.arraycopy(k, 0, buf, n, k.length);
                n += k.length;
                n = int32(buf, n, 8);
                n = int64(buf, n, r.v);
                n = int32(buf, n, 8);
                n = int64(buf, n, r.tsMillis * 1_000L - PG_EPOCH_MICROS);
            }
            n = int16(buf, n, -1); // trailer
            in.writeToCopy(buf, 0, n);
            in.endCopy(); // autocommit: the COPY's transaction commits here
            Probe.lastCommitMicros.accumulateAndGet(Probe.wallMicros(), Math::max);
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    private static int int16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
        return at + 2;
    }

    private static int int32(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
        return at + 4;
    }

    private static int int64(byte[] b, int at, long v) {
        int32(b, at, (int) (v >>> 32));
        return int32(b, at + 4, (int) v);
    }
}
