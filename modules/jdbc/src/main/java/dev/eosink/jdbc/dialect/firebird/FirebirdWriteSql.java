/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Firebird 3's write SQL. It has no multi-row {@code VALUES}, and Jaybird sends a JDBC batch row by row to Firebird
 * 3 (no server-side batches before Firebird 4), so several rows go in one {@code EXECUTE BLOCK} of one statement per
 * row: about five times a batch's speed (measured: 20,000 rows of 3 columns in 471-568 ms against 2,867 ms). Its
 * input parameters take each column's type ({@code TYPE OF COLUMN}), so no type is guessed, and it answers the rows
 * it changed as its update count. Firebird counts what such a block reads and writes against a bound of its
 * request's contexts, so a statement takes at most {@link #maxRowsPerStatement()} rows.
 */
final class FirebirdWriteSql implements WriteSql {

    /** See {@link #maxRowsPerStatement()}. */
    static final int MAX_ROWS = 80;

    private final FirebirdDialect dialect;

    FirebirdWriteSql(FirebirdDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public String quote(String identifier) {
        return dialect.quote(identifier);
    }

    @Override
    public String qualified(SqlIdentifier table) {
        return dialect.qualified(table);
    }

    /** One row: {@code INSERT ... VALUES}; more: an {@code EXECUTE BLOCK} of one INSERT per row, in row order. */
    @Override
    public String insertSql(SqlIdentifier table, List<String> columns, int rows) {
        checkRows(rows);
        String head = "INSERT INTO " + qualified(table) + " (" + columnList(columns) + ") VALUES ";
        return rows == 1 ? head + "(" + marks(columns.size()) + ")" : block(table, columns, rows, head, "");
    }

    /**
     * {@code UPDATE OR INSERT ... MATCHING (key)}: updates every column of the row whose key matches (the key's
     * too), or inserts the row; several rows in an {@code EXECUTE BLOCK}, applied in row order. A prepared branch
     * that wrote the key makes it wait (then fail with the unique key's error), one in limbo makes it fail at once
     * with 335544459 (measured). The update count of several rows is the number of records changed, a record
     * changed by two rows of the block counting once (measured).
     */
    @Override
    public Optional<String> upsertSql(SqlIdentifier table, List<String> columns, List<String> key, int rows) {
        checkRows(rows);
        String head = "UPDATE OR INSERT INTO " + qualified(table) + " (" + columnList(columns) + ") VALUES ";
        String matching = " MATCHING (" + columnList(key) + ")";
        return Optional.of(
                rows == 1
                        ? head + "(" + marks(columns.size()) + ")" + matching
                        : block(table, columns, rows, head, matching));
    }

    /**
     * {@code UPDATE OR INSERT ... MATCHING} looks up the upsert key alone: a record whose values match another unique
     * key's row fails with that key's violation (measured), which fails the epoch.
     */
    @Override
    public String upsertOnOtherUniqueKeys() {
        return "UPDATE OR INSERT ... MATCHING looks up the upsert key alone: a record whose values match another unique "
                + "key's row fails its epoch with that key's unique violation, and the job fails over on every replay "
                + "until the row or the record changes.";
    }

    /**
     * The table's unique indexes (those of its PRIMARY KEY and UNIQUE constraints among them) from {@code
     * RDB$INDICES}, active ones on columns only (an expression index names no column), each in its order.
     */
    @Override
    public List<List<String>> uniqueKeys(Connection c, SqlIdentifier table) throws SQLException {
        qualified(table);
        Map<String, List<String>> keys = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT TRIM(i.RDB$INDEX_NAME), TRIM(s.RDB$FIELD_NAME) FROM "
                + "RDB$INDICES i JOIN RDB$INDEX_SEGMENTS s ON s.RDB$INDEX_NAME = i.RDB$INDEX_NAME WHERE "
                + "i.RDB$RELATION_NAME = ? AND i.RDB$UNIQUE_FLAG = 1 AND i.RDB$EXPRESSION_BLR IS NULL AND "
                + "COALESCE(i.RDB$INDEX_INACTIVE, 0) = 0 ORDER BY i.RDB$INDEX_NAME, s.RDB$FIELD_POSITION")) {
            s.setString(1, table.name());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    keys.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(rs.getString(2));
                }
            }
        }
        return new ArrayList<>(keys.values());
    }

    /** The dead-letter table when missing, record and error as UTF8 text of any length, and an index on gid. */
    @Override
    public Optional<String> deadLetterDdl(SqlIdentifier table) {
        String name = qualified(table);
        String index = indexName(table.name(), "_gid");
        return Optional.of("EXECUTE BLOCK AS BEGIN\n"
                + DdlBlock.ifMissing(
                        "RDB$RELATIONS",
                        "RDB$RELATION_NAME",
                        table.name(),
                        "CREATE TABLE " + name
                                + " (\"gid\" VARCHAR(200) NOT NULL, \"sink_id\" VARCHAR(100) NOT NULL,"
                                + " \"subtask\" INTEGER NOT NULL, \"checkpoint_id\" BIGINT NOT NULL,"
                                + " \"position\" BIGINT NOT NULL, \"record\" BLOB SUB_TYPE TEXT CHARACTER SET UTF8 NOT NULL,"
                                + " \"sqlstate\" VARCHAR(5), \"error\" BLOB SUB_TYPE TEXT CHARACTER SET UTF8 NOT NULL,"
                                + " \"created_at\" TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)")
                + DdlBlock.ifMissing(
                        "RDB$INDICES",
                        "RDB$INDEX_NAME",
                        index,
                        "CREATE INDEX " + quote(index) + " ON " + name + " (\"gid\")")
                + "END");
    }

    /**
     * 60,000 bytes of statement text. Firebird 3 accepted a statement of 70,008 characters (measured); not measured
     * at the limit. The message of the parameters is no bound at {@link #maxRowsPerStatement()} rows: 80 and 100
     * rows of a VARCHAR(8000) UTF8 column (32,002 bytes a parameter, about 3 MB) ran (measured).
     */
    @Override
    public long maxStatementBytes(Connection c) {
        return 60_000;
    }

    /**
     * 80 rows. Firebird 3 allows 256 contexts (tables, views, procedures a statement names, each time it names them)
     * in one request, and refuses a larger {@code EXECUTE BLOCK} with 54001 / 335544800 "Too many Contexts of
     * Relation/Procedure/Views. Maximum allowed is 256". Measured on 3.0.11: an {@code UPDATE OR INSERT} takes 3 of
     * them (85 rows ran, 86 were refused), an {@code INSERT} 1 (256 ran, 257 were refused), whatever the table's
     * columns, key, CHECK constraints, foreign keys and triggers (those run as requests of their own). 80 keeps a
     * margin below the upsert's 85; the statement's bytes are bounded apart ({@link #maxStatementBytes}).
     */
    @Override
    public int maxRowsPerStatement() {
        return MAX_ROWS;
    }

    /**
     * {@code name + suffix}, or, where that is longer than Firebird 3 takes, {@code eosink_ix_} and 16 hex digits
     * of SHA-256 over both: the same name on every writer, so that create-if-missing finds it.
     */
    static String indexName(String name, String suffix) {
        String plain = name + suffix;
        if (plain.getBytes(StandardCharsets.UTF_8).length <= FirebirdDialect.MAX_IDENTIFIER_BYTES) {
            return plain;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(plain.getBytes(StandardCharsets.UTF_8));
            return "eosink_ix_" + HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** {@code EXECUTE BLOCK (p0 TYPE OF COLUMN t.c0 = ?, ...) AS BEGIN head(:p0, ...) tail; ... END}. */
    private String block(SqlIdentifier table, List<String> columns, int rows, String head, String tail) {
        String name = qualified(table);
        StringBuilder params = new StringBuilder();
        StringBuilder body = new StringBuilder();
        int n = 0;
        for (int row = 0; row < rows; row++) {
            List<String> values = new ArrayList<>(columns.size());
            for (String column : columns) {
                params.append(n == 0 ? "" : ", ")
                        .append('p')
                        .append(n)
                        .append(" TYPE OF COLUMN ")
                        .append(name)
                        .append('.')
                        .append(quote(column))
                        .append(" = ?");
                values.add(":p" + n++);
            }
            body.append(head)
                    .append('(')
                    .append(String.join(", ", values))
                    .append(')')
                    .append(tail)
                    .append(";\n");
        }
        return "EXECUTE BLOCK (" + params + ") AS BEGIN\n" + body + "END";
    }

    private static void checkRows(int rows) {
        if (rows < 1 || rows > MAX_ROWS) {
            throw new IllegalArgumentException(
                    "a Firebird statement takes 1 to " + MAX_ROWS + " rows (maxRowsPerStatement()); was " + rows);
        }
    }

    private String columnList(List<String> columns) {
        return columns.stream().map(this::quote).collect(Collectors.joining(", "));
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}
