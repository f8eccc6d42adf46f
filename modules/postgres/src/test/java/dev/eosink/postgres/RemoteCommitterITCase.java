/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.RemoteCommitterEpochs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer whose committer runs in another JVM hears no commit signal: within an epoch, its {@code
 * OwnCommits} asks the database through the session's listing of prepared transactions (on a connection
 * of its own) whether the previous transaction is still prepared. Here, on a real PostgreSQL, the epoch's
 * upserts of keys the previous transaction wrote are held while it is prepared, and run within the same
 * epoch once another session (the other JVM's committer) committed it: nothing is carried past the barrier.
 */
class RemoteCommitterITCase {

    private final PostgresFixture db = PostgresFixture.get();

    /**
     * @param held how many upserts of the prepared transaction's keys the second epoch gathers before it
     *     first asks (the upsert path defers statements up to eight batches; with COPY, a batch is a
     *     quarter of a COPY chunk)
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"BATCH, 400", "COPY, 20000"})
    void heldUpsertsRunWithinTheEpochOnceTheDatabaseShowsTheOtherJvmsCommit(WriteMethod method, int held)
            throws Exception {
        int more = held / 5; // then as many more old keys, each after a new key (COPY's, when on)
        String table = "remote_committer_" + System.nanoTime() % 100_000;
        String sinkId = table.replace('_', '-');
        db.execute("CREATE TABLE " + table + " (k bigint PRIMARY KEY, v bigint NOT NULL)");
        ExactlyOnceSink<long[]> sink = PostgresSink.<long[]>builder()
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(table)
                .columns("k", "v")
                .rows(r -> new Object[] {r[0], r[1]})
                .upsert("k")
                .writeMethod(method)
                .batchSize(50)
                .claimWait(Duration.ofSeconds(10))
                .build();
        SubtaskContext context =
                new SubtaskContext(sinkId, 0, 1, 0, new JobRun("remote-committer", OptionalLong.empty()));
        try (WriterSession<long[]> writer = sink.database().openWriter(context);
                CommitSession otherJvm = sink.database().openCommitter(context)) {
            RemoteCommitterEpochs.run(context, writer, otherJvm, held, more);
        }
        assertThat(values(table))
                .as("every key once, at its second value")
                .hasSize(held + 2 * more)
                .containsOnly(2L);
        assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId)))
                .as("prepared transactions left")
                .isEmpty();
    }

    private List<Long> values(String table) throws Exception {
        List<Long> values = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM " + table + " ORDER BY k")) {
            while (rs.next()) {
                values.add(rs.getLong(1));
            }
        }
        return values;
    }
}
