/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;

import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * numRecordsSend counts records once they reached the database: at the writer's flush (every barrier and
 * end of input), not while a batch may still hold them, and each record once.
 */
class ExactlyOnceWriterMetricsTest {

    @Test
    void countsRecordsWhenTheyAreFlushedEachOnce() throws Exception {
        BufferingSession session = new BufferingSession();
        SimpleCounter sent = new SimpleCounter();
        ExactlyOnceWriter<String> writer = new ExactlyOnceWriter<>(
                new SinkSubtask(
                        new SubtaskContext("orders", 0, 1, 0, new JobRun("job", OptionalLong.empty())),
                        SinkSettings.defaults("orders"),
                        "table \"orders\"",
                        TestWording.WORDS),
                session,
                List.of(),
                new WriterTask(
                        WriterMetrics.unregistered(sent),
                        null,
                        ExactlyOnceWriter.DEFAULT_CHECKPOINT_TIMEOUT,
                        null,
                        System::nanoTime));

        writer.write("a", null);
        writer.write("b", null);
        assertThat(sent.getCount()).as("buffered, not sent").isZero();

        writer.flush(false);
        assertThat(sent.getCount()).isEqualTo(2);
        writer.flush(false);
        assertThat(sent.getCount()).as("a second flush sends nothing new").isEqualTo(2);
        writer.prepareCommit();
        writer.snapshotState(1);

        writer.write("c", null);
        writer.flush(true);
        assertThat(sent.getCount()).isEqualTo(3);
        writer.prepareCommit();
        assertThat(session.sent).containsExactly("a", "b", "c");
        writer.close();
    }

    /** Buffers writes until flush, like the JDBC batch. */
    private static final class BufferingSession extends NoOpWriterSession {
        final List<String> buffer = new ArrayList<>();
        final List<String> sent = new ArrayList<>();

        @Override
        public void write(String record, long positionInEpoch) {
            buffer.add(record);
        }

        @Override
        public void flush() {
            sent.addAll(buffer);
            buffer.clear();
        }

        @Override
        public void prepare(TransactionId id, long rows) {
            flush();
        }

        @Override
        public void abortOpen() {
            buffer.clear();
        }
    }
}
