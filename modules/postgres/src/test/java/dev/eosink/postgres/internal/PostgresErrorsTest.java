/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;

import static dev.eosink.postgres.internal.PostgresErrors.OnCommit.FATAL;
import static dev.eosink.postgres.internal.PostgresErrors.OnCommit.NOT_FOUND;
import static dev.eosink.postgres.internal.PostgresErrors.OnCommit.RETRY;
import static org.assertj.core.api.Assertions.assertThat;

class PostgresErrorsTest {

    private static SQLException state(String sqlState) {
        return new SQLException("x", sqlState);
    }

    @Test
    void commitErrorsSortIntoThreeBuckets() {
        assertThat(PostgresErrors.onCommit(state("42704"))).isEqualTo(NOT_FOUND);
        for (String retry :
                new String[] {"55000", "08006", "08003", "08001", "57P01", "57P02", "57P03", "53300", "40001", "40P01"
                }) {
            assertThat(PostgresErrors.onCommit(state(retry))).as(retry).isEqualTo(RETRY);
        }
        for (String fatal : new String[] {"0A000", "42501", "42601", "XX000"}) {
            assertThat(PostgresErrors.onCommit(state(fatal))).as(fatal).isEqualTo(FATAL);
        }
    }

    /** What a dead-letter table may keep: a record's data was refused, nothing else. */
    @Test
    void onlyDataErrorsRejectARecord() {
        for (String state : new String[] {"23502", "23505", "23514", "22001", "22P02", "42804"}) {
            assertThat(PostgresErrors.rejectsRecord(state(state))).as(state).isTrue();
        }
        for (String state : new String[] {"08006", "57P01", "55P03", "40P01", "42501", "42P01", null}) {
            assertThat(PostgresErrors.rejectsRecord(state(state))).as(state).isFalse();
        }
    }

    @Test
    void lostConnectionsWithoutStateAreRetried() {
        assertThat(PostgresErrors.onCommit(new SQLRecoverableException("gone"))).isEqualTo(RETRY);
        assertThat(PostgresErrors.onCommit(new SQLException("io", null, new IOException("reset"))))
                .isEqualTo(RETRY);
        assertThat(PostgresErrors.onCommit(new SQLException("no state"))).isEqualTo(FATAL);
    }

    @Test
    void fatalCommitErrorsNameTheRemedy() {
        assertThat(PostgresErrors.commitRemedy(state("0A000"))).contains("same database");
        assertThat(PostgresErrors.commitRemedy(state("42501"))).contains("role that prepared");
    }

    @Test
    void writeErrorsSayWhatHappenedToTheEpoch() {
        assertThat(PostgresErrors.onWrite(state("23502")))
                .contains("rejected a record")
                .contains("23502");
        assertThat(PostgresErrors.onWrite(state("22001"))).contains("rejected a record");
        assertThat(PostgresErrors.onWrite(state("08006")))
                .contains("connection")
                .contains("replayed");
        assertThat(PostgresErrors.onWrite(state("42804")))
                .contains("does not accept")
                .contains("42804")
                .contains("fail the same way after every restart");
    }
}
