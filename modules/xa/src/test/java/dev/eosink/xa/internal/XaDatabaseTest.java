/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** Which refusals of the database a restart finds the same, and which a restart may not. */
class XaDatabaseTest {

    @Test
    void aMissingTableColumnOrPrivilegeIsForGood() {
        assertThat(XaDatabase.refusesForGood(new SQLException("Table 'app.t' doesn't exist", "42S02", 1146)))
                .isTrue();
        assertThat(XaDatabase.refusesForGood(new SQLException("Unknown column 'v'", "42S22", 1054)))
                .isTrue();
        assertThat(XaDatabase.refusesForGood(new SQLException("SELECT command denied", "42000", 1142)))
                .isTrue();
    }

    @Test
    void aUsersResourceLimitIsNotForGoodThoughMariaDbReportsIt42000() {
        assertThat(XaDatabase.refusesForGood(new SQLException(
                        "User 'eosink' has exceeded the 'max_user_connections' resource", "42000", 1203)))
                .isFalse();
        assertThat(XaDatabase.refusesForGood(new SQLException(
                        "User 'eosink' has exceeded the 'max_queries_per_hour' resource (current value: 1000)",
                        "42000",
                        1226)))
                .isFalse();
    }

    @Test
    void aLostConnectionOrALockIsNotForGood() {
        assertThat(XaDatabase.refusesForGood(new SQLException("Connection reset", "08S01", 0)))
                .isFalse();
        assertThat(XaDatabase.refusesForGood(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .isFalse();
        assertThat(XaDatabase.refusesForGood(new SQLException("no state"))).isFalse();
    }
}
