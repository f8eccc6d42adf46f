/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.testing.FirebirdFixture;

import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Adversarial review (break-dialects): a Firebird sink whose names Firebird 3 cannot take must be refused at start
 * without restarts (a {@link MisconfigurationException}, which {@code ExactlyOnceSink.refusedWithoutRestarts} looks
 * for in an {@link java.io.IOException}), naming the sink and subtask, like every other start-up refusal.
 */
class BreakFirebirdStartITCase {

    private static FirebirdFixture firebird;
    private static String url;

    @BeforeAll
    static void start() throws Exception {
        firebird = FirebirdFixture.start();
        firebird.createDatabase("breakd");
        url = firebird.url("breakd");
        try (Connection c = DriverManager.getConnection(url, admin());
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE T1 (ID BIGINT NOT NULL PRIMARY KEY)");
        }
    }

    @AfterAll
    static void stop() {
        if (firebird != null) {
            firebird.close();
        }
    }

    private static Properties admin() {
        Properties p = new Properties();
        p.setProperty("user", FirebirdFixture.ADMIN_USER);
        p.setProperty("password", FirebirdFixture.ADMIN_PASSWORD);
        return p;
    }

    private static XaDatabase<Long> database(SqlIdentifier target, SqlIdentifier markers) {
        return new XaDatabase<>(new XaSinkOptions<>(
                XaConnector.of(url, admin()),
                JdbcSinkOptions.builder(WriteMode.<Long>inserts(
                                InsertStatement.forColumns(target, List.of("ID"), id -> new Object[] {id}),
                                RefusedRecords.failTheEpoch()))
                        .markerTable(markers)
                        .batchSize(10)
                        .build(),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10)));
    }

    private static Throwable openWriter(XaDatabase<Long> database, String sinkId) {
        SubtaskContext context = new SubtaskContext(sinkId, 0, 1, 1, new JobRun("job", OptionalLong.empty()));
        return catchThrowable(() -> {
            try (WriterSession<Long> writer = database.openWriter(context)) {
                // opened: not expected
            }
        });
    }

    /** A marker table name of 32 bytes: Firebird 3 takes 31. Every restart finds the same. */
    @Test
    void aMarkerTableNameTooLongForFirebirdIsRefusedWithoutRestarts() {
        String longName = "eosink_markers_of_the_orders_job"; // 32 characters
        assertThat(longName).hasSize(32);
        Throwable thrown = openWriter(
                database(new SqlIdentifier(null, "T1"), new SqlIdentifier(null, longName)), "fb-long-marker");
        assertThat(thrown).as("the start's failure").isNotNull();
        assertThat(ExceptionUtils.findThrowable(thrown, MisconfigurationException.class))
                .as("a refusal without restarts (MisconfigurationException), not " + thrown)
                .isPresent();
        assertThat(thrown.getMessage()).contains("fb-long-marker").contains("subtask");
    }

    /** A target table in a schema: Firebird 3 has none. Every restart finds the same. */
    @Test
    void aTargetTableInASchemaIsRefusedWithoutRestartsOnFirebird() {
        Throwable thrown = openWriter(
                database(new SqlIdentifier("SHOP", "T1"), new SqlIdentifier(null, "eosink_markers")),
                "fb-schema-target");
        assertThat(thrown).as("the start's failure").isNotNull();
        assertThat(ExceptionUtils.findThrowable(thrown, MisconfigurationException.class))
                .as("a refusal without restarts (MisconfigurationException), not " + thrown)
                .isPresent();
        assertThat(thrown.getMessage()).contains("fb-schema-target").contains("subtask");
    }
}
