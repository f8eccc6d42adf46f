/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.postgres;

import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.util.Optional;

/** The marker table in PostgreSQL's SQL; the DDL is the same as sql/01-marker-table.sql. */
final class PostgresMarkerSql implements MarkerSql {

    private final SqlIdentifier table;

    PostgresMarkerSql(SqlIdentifier table) {
        this.table = table;
    }

    @Override
    public String table() {
        return table.sql();
    }

    @Override
    public String createSql() {
        return "CREATE TABLE IF NOT EXISTS " + table.sql()
                + " (gid text PRIMARY KEY, sink_id text NOT NULL, subtask integer NOT NULL,"
                + " checkpoint_id bigint NOT NULL, row_count bigint NOT NULL,"
                + " created_at timestamptz NOT NULL DEFAULT now()); "
                + "CREATE INDEX IF NOT EXISTS " + SqlIdentifier.quote(table.name() + "_sink_created")
                + " ON " + table.sql() + " (sink_id, created_at)";
    }

    @Override
    public String pruneSql() {
        return "DELETE FROM " + table.sql() + " WHERE sink_id = ? AND created_at < now() - make_interval(secs => ?)";
    }

    @Override
    public Optional<String> committedAfterSql() {
        return Optional.of("SELECT count(*), coalesce(sum(row_count), 0), min(checkpoint_id), max(checkpoint_id) FROM "
                + table.sql() + " WHERE sink_id = ? AND (checkpoint_id > ? OR gid NOT LIKE ?)"
                + " AND created_at > to_timestamp(? / 1000.0)");
    }
}
