/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.sql.DeadLetterBuffer;
import dev.eosink.jdbc.sql.SqlIdentifier;

/**
 * The PostgreSQL sink's optional dead-letter table: the shared {@link DeadLetterBuffer} (what is kept,
 * when, and why exactly once), in the PostgreSQL dialect's SQL.
 */
final class DeadLetters extends DeadLetterBuffer {

    private final SqlIdentifier table;

    DeadLetters(SqlIdentifier table) {
        super(PostgresDialect.INSTANCE.writes().insertSql(table, COLUMNS, 1));
        this.table = table;
    }

    SqlIdentifier table() {
        return table;
    }

    /** The table, created by the sink when missing and allowed to (as the marker table). */
    static String createSql(SqlIdentifier table) {
        return PostgresDialect.INSTANCE.writes().deadLetterDdl(table).orElseThrow();
    }
}
