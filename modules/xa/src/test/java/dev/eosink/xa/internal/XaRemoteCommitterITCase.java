/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.RemoteCommitterEpochs;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer whose committer runs in another JVM hears no commit signal: within an epoch, its {@code
 * OwnCommits} asks the database, on the writer's guard connection while the epoch's branch is active,
 * whether the previous branch is still prepared. On MariaDB (the XA database the sink upserts into):
 * the epoch's upserts of keys the previous branch wrote are held while it is prepared, and run within
 * the same epoch once another session (the other JVM's committer) committed it: nothing is carried past
 * the barrier.
 */
class XaRemoteCommitterITCase {

    private static final int BATCH = 10;
    /** Upserts the second epoch gathers before it first asks: the XA upserts defer up to eight batches. */
    private static final int HELD = 100;

    private static final int MORE = 20;

    private final MariaDbFixture db = MariaDbFixture.get();

    @Test
    void heldUpsertsRunWithinTheEpochOnceTheDatabaseShowsTheOtherJvmsCommit() throws Exception {
        String sinkId = "xa-remote-" + System.nanoTime() % 100000;
        String table = sinkId.replace('-', '_');
        db.execute("CREATE TABLE " + table + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB");
        db.execute("GRANT UPDATE ON " + MariaDbFixture.DATABASE + "." + table + " TO '" + MariaDbFixture.SINK_USER
                + "'@'%'");
        Properties props = new Properties();
        props.setProperty("user", MariaDbFixture.SINK_USER);
        props.setProperty("password", MariaDbFixture.SINK_PASSWORD);
        XaDatabase<long[]> database = new XaDatabase<>(new XaSinkOptions<>(
                XaConnector.of(db.jdbcUrl(), props),
                JdbcSinkOptions.builder(WriteMode.<long[]>upserts(
                                InsertStatement.forColumns(new SqlIdentifier(null, table), List.of("k", "v"), r ->
                                        new Object[] {r[0], r[1]}),
                                List.of("k")))
                        .batchSize(BATCH)
                        .build(),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10)));
        SubtaskContext context =
                new SubtaskContext(sinkId, 0, 1, 0, new JobRun("remote-committer", OptionalLong.empty()));
        try (WriterSession<long[]> writer = database.openWriter(context);
                CommitSession otherJvm = database.openCommitter(context)) {
            RemoteCommitterEpochs.run(context, writer, otherJvm, HELD, MORE);
        }
        assertThat(values(table))
                .as("every key once, at its second value")
                .hasSize(HELD + 2 * MORE)
                .containsOnly(2L);
    }

    private List<Long> values(String table) throws SQLException {
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
