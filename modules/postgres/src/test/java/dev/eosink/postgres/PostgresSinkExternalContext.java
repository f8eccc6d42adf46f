/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemDataReader;
import org.apache.flink.connector.testframe.external.sink.DataStreamSinkV2ExternalContext;
import org.apache.flink.connector.testframe.external.sink.TestingSinkSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URL;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What Flink's {@link org.apache.flink.connector.testframe.testsuites.SinkTestSuiteBase} needs to drive
 * this sink: one fresh table and sink id per test case, a sink writing strings into it, test data, and a
 * reader of what became visible (committed) in PostgreSQL.
 *
 * <p>The table has a generated key besides the payload, so the reader returns every committed row exactly
 * once, duplicates included: the suite's exactly-once check then sees a duplicate as one record too many.
 *
 * <p>The one difference from production: the suite's savepoint and rescale cases run their first job with
 * checkpointing disabled on purpose. Its source emits the second half of the data as soon as a checkpoint
 * has seen the first half, and its collect sink (which tells the test that the first half went through)
 * delivers nothing before a checkpoint when checkpointing is on; so the stop-with-savepoint must be that
 * job's only checkpoint, and the only commit. This sink refuses a streaming job without checkpointing
 * while the job graph is built (hard case 15; MisconfigurationITCase#streamingWithoutCheckpointing proves
 * it), so the suite gets the production sink with that one check lifted, for jobs without checkpointing
 * only ({@link WithoutCheckpointingGuard}). Writer, committer, recovery and commit on stop-with-savepoint
 * are the production code.
 */
final class PostgresSinkExternalContext implements DataStreamSinkV2ExternalContext<String> {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSinkExternalContext.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** One context per test case, created by the suite's extension before the case runs. */
    static ExternalContextFactory<PostgresSinkExternalContext> factory() {
        return testName -> new PostgresSinkExternalContext(PostgresFixture.get());
    }

    private final PostgresFixture db;
    private final String table;
    private final String sinkId;

    private PostgresSinkExternalContext(PostgresFixture db) {
        this.db = db;
        String unique = "suite_" + SEQUENCE.incrementAndGet() + "_" + (System.nanoTime() % 100000);
        this.table = unique;
        this.sinkId = unique.replace('_', '-');
        db.execute("CREATE TABLE " + table
                + " (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL)");
    }

    @Override
    public Sink<String> createSink(TestingSinkSettings sinkSettings) {
        // Exactly-once regardless of the requested mode: it satisfies at-least-once as well.
        return new WithoutCheckpointingGuard<>(PostgresSink.<String>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(table)
                .columns("payload")
                .rows(payload -> new Object[] {payload})
                .build());
    }

    /**
     * The production sink, except that a streaming job with checkpointing disabled is accepted: it commits
     * only on stop-with-savepoint (see the class comment). Jobs that checkpoint get every check.
     */
    static final class WithoutCheckpointingGuard<IN> extends ExactlyOnceSink<IN> {
        private static final long serialVersionUID = 1L;

        WithoutCheckpointingGuard(ExactlyOnceSink<IN> sink) {
            super(sink.database(), sink.settings());
        }

        @Override
        public DataStream<IN> addPreWriteTopology(DataStream<IN> input) {
            if (!input.getExecutionEnvironment().getCheckpointConfig().isCheckpointingEnabled()) {
                return input;
            }
            return super.addPreWriteTopology(input);
        }
    }

    @Override
    public ExternalSystemDataReader<String> createSinkDataReader(TestingSinkSettings sinkSettings) {
        return new CommittedRows();
    }

    /** 100 to 199 distinct strings, unique to this seed: "<seed>-<index>-<random letters>". */
    @Override
    public List<String> generateTestData(TestingSinkSettings sinkSettings, long seed) {
        Random random = new Random(seed);
        int n = 100 + random.nextInt(100);
        List<String> data = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            StringBuilder letters = new StringBuilder();
            for (int j = 0; j < 8; j++) {
                letters.append((char) ('a' + random.nextInt(26)));
            }
            data.add(seed + "-" + i + "-" + letters);
        }
        return data;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return Collections.emptyList(); // the MiniCluster runs in this JVM, with the test classpath
    }

    /**
     * Cancelled jobs (the suite ends its unbounded ones that way) leave the transactions of checkpoints
     * that had not completed prepared; they hold locks on the table until rolled back.
     */
    @Override
    public void close() {
        List<String> left = db.preparedGids(TransactionId.sinkPrefix(sinkId));
        if (!left.isEmpty()) {
            LOG.info(
                    "Rolling back {} prepared transaction(s) of cancelled jobs of sink {}: {}",
                    left.size(),
                    sinkId,
                    left);
            db.rollbackPrepared(TransactionId.sinkPrefix(sinkId));
        }
        db.execute("DROP TABLE IF EXISTS " + table);
    }

    @Override
    public String toString() {
        return "PostgreSQL table " + table + " (sink id " + sinkId + ")";
    }

    /** Each poll returns the committed rows it has not returned before, waiting up to the timeout for some. */
    private final class CommittedRows implements ExternalSystemDataReader<String> {
        private final Set<Long> seen = new HashSet<>();

        @Override
        public List<String> poll(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                List<String> fresh = readUnseen();
                if (!fresh.isEmpty() || System.nanoTime() >= deadline) {
                    return fresh;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return fresh;
                }
            }
        }

        private List<String> readUnseen() {
            List<String> fresh = new ArrayList<>();
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT seq, payload FROM " + table + " ORDER BY seq")) {
                while (rs.next()) {
                    if (seen.add(rs.getLong(1))) {
                        fresh.add(rs.getString(2));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("could not read " + table, e);
            }
            return fresh;
        }

        @Override
        public void close() {}
    }
}
