/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.sql.CarriedNotices;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.util.Optional;

/**
 * The marker table on Firebird 3: every column quoted ({@code ROW_COUNT} is reserved), {@code created_at} a
 * TIMESTAMP of the server's local time ({@code CURRENT_TIMESTAMP}: Firebird 3 knows no time zone).
 */
final class FirebirdMarkerSql implements MarkerSql {

    private final FirebirdDialect dialect;
    private final SqlIdentifier table;
    private final String quoted;

    FirebirdMarkerSql(FirebirdDialect dialect, SqlIdentifier table) {
        this.dialect = dialect;
        this.table = table;
        this.quoted = dialect.qualified(table);
    }

    @Override
    public String table() {
        return quoted;
    }

    /**
     * One {@code EXECUTE BLOCK} that creates the table, then its index on {@code (sink_id, created_at)}, each when
     * {@code RDB$RELATIONS} or {@code RDB$INDICES} lacks it, each in an autonomous transaction of its own (so that
     * the index is made on a committed table). Writers that start together race to create them: one that loses
     * fails only if the object is still missing after its failure.
     */
    @Override
    public String createSql() {
        String index = FirebirdWriteSql.indexName(table.name(), "_sink_created");
        return "EXECUTE BLOCK AS BEGIN\n"
                + DdlBlock.ifMissing(
                        "RDB$RELATIONS",
                        "RDB$RELATION_NAME",
                        table.name(),
                        "CREATE TABLE " + quoted
                                + " (\"gid\" VARCHAR(200) NOT NULL PRIMARY KEY, \"sink_id\" VARCHAR(100) NOT NULL,"
                                + " \"subtask\" INTEGER NOT NULL, \"checkpoint_id\" BIGINT NOT NULL,"
                                + " \"row_count\" BIGINT NOT NULL,"
                                + " \"created_at\" TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)")
                + DdlBlock.ifMissing(
                        "RDB$INDICES",
                        "RDB$INDEX_NAME",
                        index,
                        "CREATE INDEX " + dialect.quote(index) + " ON " + quoted + " (\"sink_id\", \"created_at\")")
                + "END";
    }

    /**
     * By the server's clock on both sides ({@code created_at} and {@code CURRENT_TIMESTAMP} are its local time), so
     * no time zone enters; a change of daylight saving time shifts the age of the markers written before it by that
     * hour. Run past prepared branches ({@link dev.eosink.jdbc.dialect.XaTraits#pastPrepared}): a DELETE that meets
     * a marker of a branch in limbo fails otherwise.
     */
    @Override
    public String pruneSql() {
        return "DELETE FROM " + quoted + " WHERE \"sink_id\" = ? AND \"created_at\" < DATEADD(SECOND, -CAST(? AS "
                + "INTEGER), CURRENT_TIMESTAMP)";
    }

    /**
     * Compares each marker's {@code created_at} with the server's own clock less the checkpoint's age ({@link
     * #committedAfterTime}): both sides are the server's local time, so the time zone Firebird 3 does not tell never
     * enters. A change of daylight saving time between a marker's write and this read shifts that marker by the
     * change (run the server in UTC, or a zone without it, to rule that out). Run past prepared branches ({@link
     * dev.eosink.jdbc.dialect.XaTraits#pastPrepared}): a read that meets a marker of a branch in limbo fails
     * otherwise.
     */
    @Override
    public Optional<String> committedAfterSql() {
        return Optional.of(
                "SELECT COUNT(*), COALESCE(SUM(\"row_count\"), 0), MIN(\"checkpoint_id\"), "
                        + "MAX(\"checkpoint_id\") FROM " + quoted
                        + " WHERE \"sink_id\" = ? AND (\"checkpoint_id\" > ? OR "
                        + "\"gid\" NOT LIKE ?) AND \"created_at\" > DATEADD(MILLISECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)");
    }

    /** The checkpoint's age in milliseconds by the caller's clock, never negative (a clock behind the job's). */
    @Override
    public long committedAfterTime(long sinceEpochMillis) {
        return Math.max(0, System.currentTimeMillis() - sinceEpochMillis);
    }

    @Override
    public String insertSql() {
        return "INSERT INTO " + quoted + " (\"gid\", \"sink_id\", \"subtask\", \"checkpoint_id\", \"row_count\") "
                + "VALUES (?, ?, ?, ?, ?)";
    }

    @Override
    public String existsSql() {
        return "SELECT 1 FROM " + quoted + " WHERE \"gid\" = ?";
    }

    @Override
    public String rowCountSql() {
        return "SELECT \"row_count\" FROM " + quoted + " WHERE \"gid\" = ?";
    }

    @Override
    public String bySinkSql(boolean oneSink) {
        return "SELECT \"sink_id\", COUNT(*), MIN(\"checkpoint_id\"), MAX(\"checkpoint_id\"), MIN(\"created_at\"), "
                + "MAX(\"created_at\") FROM " + quoted
                + (oneSink ? " WHERE \"sink_id\" = ?" : " WHERE \"sink_id\" NOT LIKE '%" + CarriedNotices.SUFFIX + "'")
                + " GROUP BY \"sink_id\" ORDER BY \"sink_id\"";
    }

    @Override
    public String noticesSql() {
        return "SELECT \"gid\", \"row_count\" FROM " + quoted + " WHERE \"sink_id\" = ? ORDER BY \"subtask\", "
                + "\"checkpoint_id\"";
    }

    @Override
    public String deleteSql() {
        return "DELETE FROM " + quoted + " WHERE \"gid\" = ?";
    }

    @Override
    public String rowsOfSql() {
        return "SELECT \"gid\", \"row_count\", \"created_at\" FROM " + quoted
                + " WHERE \"sink_id\" = ? ORDER BY \"subtask\", \"checkpoint_id\"";
    }
}
