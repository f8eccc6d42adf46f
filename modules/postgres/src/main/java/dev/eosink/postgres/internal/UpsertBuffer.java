package dev.eosink.postgres.internal;

import org.apache.flink.types.RowKind;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Upserts and deletes by key, a batch at a time, as two array-bound statements:
 *
 * <pre>
 * INSERT INTO t (k, a, b) SELECT * FROM unnest(?::text[]::bigint[], ?::text[]::text[], ...)
 *     ON CONFLICT (k) DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b
 * DELETE FROM t WHERE (k) IN (SELECT * FROM unnest(?::text[]::bigint[]))
 * </pre>
 *
 * <p>A batch keeps only the last record of each key (PostgreSQL refuses an INSERT ... ON CONFLICT
 * that touches one row twice), so upserts and deletes of one batch concern different keys and their
 * order does not matter; batches run in order. Values travel as text and are cast by the server to
 * the column's type, so every type with a text form works and type modifiers are enforced.
 */
final class UpsertBuffer {

    private static final Object DELETE = new Object();

    private final String upsertSql;
    private final String upsertWithNulls;
    private final String deleteSql;
    private final int columns;
    private final int[] keyIndexes;
    private final LinkedHashMap<Object, Object> pending = new LinkedHashMap<>();
    private PreparedStatement upsert;
    private PreparedStatement delete;
    private long firstPosition = -1;
    private long lastPosition;

    UpsertBuffer(SqlIdentifier table, List<String> columns, List<String> columnTypes, List<String> keyColumns) {
        this.columns = columns.size();
        this.keyIndexes = keyColumns.stream().mapToInt(columns::indexOf).toArray();
        this.upsertSql = upsertSql(table, columns, columnTypes, keyColumns, "?");
        this.upsertWithNulls = upsertSql(table, columns, columnTypes, keyColumns, "NULL");
        String keys = keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        String keyArrays = Arrays.stream(keyIndexes).mapToObj(i -> "?::text[]::" + columnTypes.get(i) + "[]")
                .collect(Collectors.joining(", "));
        this.deleteSql = "DELETE FROM " + table.sql() + " WHERE (" + keys + ") IN (SELECT * FROM unnest(" + keyArrays + "))";
    }

    /** The upsert with {@code parameter} for each column's array: "?" to bind, "NULL" to EXPLAIN. */
    private static String upsertSql(
            SqlIdentifier table, List<String> columns, List<String> columnTypes, List<String> keyColumns, String parameter) {
        String cols = columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        String arrays = columnTypes.stream().map(t -> parameter + "::text[]::" + t + "[]").collect(Collectors.joining(", "));
        String keys = keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        List<String> others = new ArrayList<>(columns);
        others.removeAll(keyColumns);
        String action = others.isEmpty()
                ? "DO NOTHING"
                : "DO UPDATE SET " + others.stream().map(c -> SqlIdentifier.quote(c) + " = EXCLUDED." + SqlIdentifier.quote(c))
                        .collect(Collectors.joining(", "));
        return "INSERT INTO " + table.sql() + " (" + cols + ") SELECT * FROM unnest(" + arrays + ") ON CONFLICT ("
                + keys + ") " + action;
    }

    /**
     * The upsert with NULL arrays instead of parameters, to EXPLAIN at start. Not by replacing "?" in
     * the statement: a quoted column name may contain one.
     */
    String upsertSqlWithNulls() {
        return upsertWithNulls;
    }

    /**
     * The key of a row, as it is compared here and travels to the server: the text form of the key
     * column's value (numbers normalized, so that 1.0 and 1.00 are one key), or with several key
     * columns a list of them. Keys are equal exactly when their text forms are.
     */
    Object keyOf(Object[] row) {
        if (keyIndexes.length == 1) {
            return keyText(row[keyIndexes[0]]);
        }
        List<Object> key = new ArrayList<>(keyIndexes.length);
        for (int i : keyIndexes) {
            key.add(keyText(row[i]));
        }
        return key;
    }

    private static String keyText(Object value) {
        if (value == null) {
            throw new IllegalArgumentException("key column value is null; an upsert key must not be null");
        }
        return value instanceof BigDecimal ? ((BigDecimal) value).stripTrailingZeros().toPlainString() : text(value);
    }

    /** Part {@code k} of a {@link #keyOf key}, as text. */
    private String keyPart(Object key, int k) {
        return keyIndexes.length == 1 ? (String) key : (String) ((List<?>) key).get(k);
    }

    /** Adds a record's row (or its delete) under its {@link #keyOf key}; UPDATE_BEFORE is not written. */
    void add(Object key, Object[] row, RowKind kind, long position) {
        pending.remove(key); // re-inserted last: the batch keeps the order of the latest write per key
        pending.put(key, kind == RowKind.DELETE ? DELETE : row);
        if (firstPosition < 0) {
            firstPosition = position;
        }
        lastPosition = position;
    }

    int size() {
        return pending.size();
    }

    long firstPosition() {
        return firstPosition;
    }

    long lastPosition() {
        return lastPosition;
    }

    /** Runs the batch's upserts and deletes in the open transaction, then empties it. */
    void execute(Connection c) throws SQLException {
        if (pending.isEmpty()) {
            return;
        }
        List<Object[]> rows = new ArrayList<>();
        List<Object> deletes = new ArrayList<>();
        for (Iterator<Map.Entry<Object, Object>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Object, Object> e = it.next();
            if (e.getValue() == DELETE) {
                deletes.add(e.getKey());
            } else {
                rows.add((Object[]) e.getValue());
            }
        }
        upsertRows(c, rows);
        if (!deletes.isEmpty()) {
            if (delete == null) {
                delete = c.prepareStatement(deleteSql);
            }
            for (int k = 0; k < keyIndexes.length; k++) {
                String[] values = new String[deletes.size()];
                for (int r = 0; r < values.length; r++) {
                    values[r] = keyPart(deletes.get(r), k);
                }
                delete.setArray(k + 1, array(c, values));
            }
            delete.executeUpdate();
        }
        clear();
    }

    /** Upserts rows of distinct keys, now, with one statement (nothing if there are none). */
    void upsertRows(Connection c, List<Object[]> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        if (upsert == null) {
            upsert = c.prepareStatement(upsertSql);
        }
        for (int col = 0; col < columns; col++) {
            String[] values = new String[rows.size()];
            for (int r = 0; r < values.length; r++) {
                values[r] = text(rows.get(r)[col]);
            }
            upsert.setArray(col + 1, array(c, values));
        }
        upsert.executeUpdate();
    }

    void clear() {
        pending.clear();
        firstPosition = -1;
    }

    private static Array array(Connection c, String[] values) throws SQLException {
        return c.createArrayOf("text", values);
    }

    /** A value's PostgreSQL text input form. */
    static String text(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof byte[]) {
            return "\\x" + HexFormat.of().formatHex((byte[]) v);
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof java.sql.Timestamp) {
            // Wall-clock time in the JVM's zone, which pgjdbc sets as the session's TimeZone: right for
            // timestamp and timestamptz columns alike (an ISO instant would lose its zone on timestamp).
            return v.toString();
        }
        return v.toString(); // numbers, booleans, strings, UUIDs, java.time values in ISO-8601
    }
}
