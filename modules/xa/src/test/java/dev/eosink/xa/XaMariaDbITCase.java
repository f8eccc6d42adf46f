/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.MariaDbFixture;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messages;
import static dev.eosink.testing.hardcases.TestJobs.noRestarts;
import static org.assertj.core.api.Assertions.assertThat;

/** The XA sink's own tests against a real MariaDB (its own mariadbd, or EOSINK_TEST_MARIADB_URL). */
class XaMariaDbITCase extends XaDialectCases {

    @Override
    XaBackend backend() {
        return new XaMariaDbBackend();
    }

    /** Only InnoDB takes part in XA: a MyISAM table would show its rows at once. Refused at start, without restarts. */
    @Test
    void aTableOutsideTransactionsIsRefusedAtStart() throws Exception {
        db.execute("ALTER TABLE " + table + " ENGINE=MyISAM");
        assertThat(refusedAtStart(sinkBuilder().build()))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("table `" + table + "` uses the MyISAM engine, which ignores XA transactions")
                .contains("Remedy: ALTER TABLE `" + table + "` ENGINE=InnoDB");
    }

    /**
     * A table the sink's user may not read or write (in a database it has no grant on): the start-up probe is
     * refused, named with the remedy, and the job fails without restarts.
     */
    @Test
    void aTableTheUserHasNoGrantOnIsRefusedAtStart() throws Exception {
        String other = table + "_db";
        db.execute("CREATE DATABASE " + other);
        try {
            db.execute("CREATE TABLE " + other + "." + table + " (id BIGINT NOT NULL, payload VARCHAR(100) NOT NULL) "
                    + "ENGINE=InnoDB");
            assertThat(refusedAtStart(sinkBuilder().table(other, table).build()))
                    .contains("sink '" + sinkId + "' subtask 0/1")
                    .contains("table " + other + "." + table + " with columns [id, payload] cannot be read")
                    .contains("SELECT command denied")
                    .contains("Remedy: create the table, fix the table or column names given to the sink, or grant "
                            + "the sink's user SELECT and INSERT on it");
        } finally {
            db.execute("DROP DATABASE " + other);
        }
    }

    /**
     * A marker table the sink must create where its user may not (no CREATE on that database): refused at
     * start, naming both ways out, without restarts.
     */
    @Test
    void aMarkerTableTheUserMayNotCreateIsRefusedAtStart() throws Exception {
        String other = table + "_db";
        db.execute("CREATE DATABASE " + other);
        try {
            assertThat(refusedAtStart(
                            sinkBuilder().markerTable(other, "eosink_markers").build()))
                    .contains("sink '" + sinkId + "' subtask 0/1")
                    .contains("could not create marker table `" + other + "`.`eosink_markers`")
                    .contains("command denied")
                    .contains("Remedy: create it")
                    .contains("or grant CREATE");
        } finally {
            db.execute("DROP DATABASE " + other);
        }
    }

    /** Where the server checks passwords: a wrong one is refused at start, and never shown. */
    @Test
    void wrongPasswordIsRefusedAtStartWithoutShowingIt() {
        String wrong = "wrong-pw-" + System.nanoTime();
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, 10, 1_000)
                .sinkTo(XaSink.<Long>builder()
                        .jdbcUrl(MariaDbFixture.get().jdbcUrl())
                        .username(MariaDbFixture.SINK_USER)
                        .password(wrong)
                        .sinkId(sinkId)
                        .table(table)
                        .columns("id", "payload")
                        .rows(id -> new Object[] {id, "x"})
                        .build());
        assertThat(messages(failureOf(() -> env.execute("wrong password"))))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("could not connect")
                .contains("Remedy")
                .doesNotContain(wrong);
    }
}
