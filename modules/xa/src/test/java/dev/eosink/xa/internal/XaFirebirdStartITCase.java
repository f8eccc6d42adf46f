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
 * The start of a Firebird sink whose names Firebird 3 cannot take: refused without restarts (a {@link
 * MisconfigurationException}, which {@code ExactlyOnceSink.refusedWithoutRestarts} looks for in an {@link
 * java.io.IOException}), naming the sink and subtask, the option, the name and the remedy, like every other start-up
 * refusal; and the upsert key's remedy in Firebird's own DDL.
 */
class XaFirebirdStartITCase {

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
            s.execute("CREATE TABLE T2 (ID BIGINT NOT NULL, V BIGINT)");
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
        return database(
                WriteMode.<Long>inserts(
                        InsertStatement.forColumns(target, List.of("ID"), id -> new Object[] {id}),
                        RefusedRecords.failTheEpoch()),
                markers);
    }

    private static XaDatabase<Long> database(WriteMode<Long> mode, SqlIdentifier markers) {
        return new XaDatabase<>(new XaSinkOptions<>(
                XaConnector.of(url, admin()),
                JdbcSinkOptions.builder(mode).markerTable(markers).batchSize(10).build(),
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
        assertThat(thrown.getMessage())
                .contains("marker table (markerTable(...)) \"" + longName + "\"")
                .contains("at most 31 bytes")
                .contains("Remedy: choose a shorter name");
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
        assertThat(thrown.getMessage())
                .contains("target table (table(...)) \"SHOP\".\"T1\"")
                .contains("Remedy: give the table without a schema");
    }

    /** A dead-letter table name of 32 bytes, refused as the marker table's. */
    @Test
    void aDeadLetterTableNameTooLongForFirebirdIsRefusedWithoutRestarts() {
        String longName = "eosink_dead_letters_of_the_shop1";
        assertThat(longName).hasSize(32);
        Throwable thrown = openWriter(
                database(
                        WriteMode.<Long>inserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, "T1"), List.of("ID"), id -> new Object[] {id}),
                                RefusedRecords.deadLetterTable(new SqlIdentifier(null, longName))),
                        new SqlIdentifier(null, "eosink_markers")),
                "fb-long-dead-letters");
        assertThat(ExceptionUtils.findThrowable(thrown, MisconfigurationException.class))
                .as("a refusal without restarts (MisconfigurationException), not " + thrown)
                .isPresent();
        assertThat(thrown.getMessage())
                .contains("fb-long-dead-letters")
                .contains("subtask")
                .contains("dead-letter table (deadLetterTable(...)) \"" + longName + "\"")
                .contains("Remedy: choose a shorter name");
    }

    /** An upsert key that is no unique key of the table: the remedy is Firebird's DDL, not MariaDB's. */
    @Test
    void anUpsertKeyThatIsNoUniqueKeyIsRefusedWithFirebirdsRemedy() {
        Throwable thrown = openWriter(
                database(
                        WriteMode.<Long>upserts(
                                InsertStatement.forColumns(
                                        new SqlIdentifier(null, "T2"), List.of("ID", "V"), id -> new Object[] {id, id}),
                                List.of("ID")),
                        new SqlIdentifier(null, "eosink_markers")),
                "fb-upsert-key");
        assertThat(ExceptionUtils.findThrowable(thrown, MisconfigurationException.class))
                .as("a refusal without restarts (MisconfigurationException), not " + thrown)
                .isPresent();
        assertThat(thrown.getMessage())
                .contains("fb-upsert-key")
                .contains("Remedy: ALTER TABLE \"T2\" ADD UNIQUE (\"ID\")")
                .doesNotContain("UNIQUE KEY");
    }
}
