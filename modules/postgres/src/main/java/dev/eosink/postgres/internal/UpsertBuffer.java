/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.carried.CarriedStatements;
import dev.eosink.postgres.row.RowEncoder;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * order does not matter; batches run in order. Values travel as text ({@link RowEncoder#text}) and are
 * cast by the server to the column's type, so every type with a text form works and type modifiers
 * are enforced.
 *
 * <p>Keys are compared as {@link KeyColumns} says. Where only the database can tell which records
 * share a key (citext, nondeterministic collations), the batch merges identical keys only and runs as
 * one statement that keeps, per key by the database's own equality, the record that came last, then
 * deletes or upserts it:
 *
 * <pre>
 * WITH eosink_batch AS (SELECT * FROM unnest(?::text[]::citext[], ?::text[]::bigint[], ?::text[]::boolean[])
 *          WITH ORDINALITY AS b(c0, c1, eosink_delete, eosink_order)),
 *      eosink_last AS (SELECT DISTINCT ON (c0) * FROM eosink_batch ORDER BY c0, eosink_order DESC),
 *      eosink_deleted AS (DELETE FROM t WHERE (k) IN (SELECT c0 FROM eosink_last WHERE eosink_delete))
 * INSERT INTO t (k, a) SELECT c0, c1 FROM eosink_last WHERE NOT eosink_delete
 *     ON CONFLICT (k) DO UPDATE SET k = EXCLUDED.k, a = EXCLUDED.a
 * </pre>
 *
 * (the pending order is the order of each key's latest record, so the greatest ordinality is the last
 * record; the key column takes that record's spelling, as a delete and an insert would have left it).
 *
 * @param <R> the rows, read through their {@link RowEncoder}
 */
final class UpsertBuffer<R> {

    private static final Object DELETE = new Object();

    private final String upsertSql;
    private final String upsertWithNulls;
    private final String deleteSql;
    private final int columns;
    /** The column names, which carried statements name too (see {@link CarriedStatements}). */
    private final List<String> columnNames;

    private final int[] keyIndexes;
    private final KeyColumns keys;
    private final RowEncoder<R> encoder;
    /** The one statement of a batch whose keys only the database can compare, or null. */
    private final String dedupingSql;

    private PreparedStatement deduping;
    private final LinkedHashMap<Object, Object> pending = new LinkedHashMap<>();
    private PreparedStatement upsert;
    private PreparedStatement delete;
    private long firstPosition = -1;
    private long lastPosition;

    UpsertBuffer(
            SqlIdentifier table,
            List<String> columns,
            List<String> columnTypes,
            List<String> keyColumns,
            RowEncoder<R> encoder) {
        this(table, columns, columnTypes, KeyColumns.plain(keyColumns), encoder);
    }

    UpsertBuffer(
            SqlIdentifier table,
            List<String> columns,
            List<String> columnTypes,
            KeyColumns keys,
            RowEncoder<R> encoder) {
        List<String> keyColumns = keys.names();
        this.keys = keys;
        this.encoder = encoder;
        this.columns = columns.size();
        this.columnNames = List.copyOf(columns);
        this.keyIndexes = keyColumns.stream().mapToInt(columns::indexOf).toArray();
        this.upsertSql = upsertSql(table, columns, columnTypes, keyColumns, "?");
        this.dedupingSql =
                keys.databaseDecides() ? dedupingSql(table, columns, columnTypes, keys, keyIndexes, "?") : null;
        this.upsertWithNulls = keys.databaseDecides()
                ? dedupingSql(table, columns, columnTypes, keys, keyIndexes, "NULL")
                : upsertSql(table, columns, columnTypes, keyColumns, "NULL");
        String quotedKeys = keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        String keyArrays = Arrays.stream(keyIndexes)
                .mapToObj(i -> "?::text[]::" + columnTypes.get(i) + "[]")
                .collect(Collectors.joining(", "));
        this.deleteSql = "DELETE FROM " + table.sql() + " WHERE (" + quotedKeys + ") IN (SELECT * FROM unnest("
                + keyArrays + "))";
    }

    /** The upsert with {@code parameter} for each column's array: "?" to bind, "NULL" to EXPLAIN. */
    private static String upsertSql(
            SqlIdentifier table,
            List<String> columns,
            List<String> columnTypes,
            List<String> keyColumns,
            String parameter) {
        String cols = columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        String arrays = columnTypes.stream().map(t -> unnested(t, parameter)).collect(Collectors.joining(", "));
        String keys = keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        List<String> others = new ArrayList<>(columns);
        others.removeAll(keyColumns);
        String action = others.isEmpty()
                ? "DO NOTHING"
                : "DO UPDATE SET "
                        + others.stream()
                                .map(c -> SqlIdentifier.quote(c) + " = EXCLUDED." + SqlIdentifier.quote(c))
                                .collect(Collectors.joining(", "));
        String rows = columnTypes.stream().noneMatch(UpsertBuffer::isArray)
                ? "* FROM unnest(" + arrays + ")"
                : values("u.c", columnTypes) + " FROM unnest(" + arrays + ") AS u(" + aliases(columns.size()) + ")";
        return "INSERT INTO " + table.sql() + " (" + cols + ") SELECT " + rows + " ON CONFLICT (" + keys + ") "
                + action;
    }

    /**
     * A column's values as an argument of unnest: a text array cast to an array of the column's type,
     * or, for an array column, the text array itself, cast row by row in the select list ({@link
     * #values}): unnest flattens an array of arrays, which PostgreSQL's arrays of several dimensions are.
     */
    private static String unnested(String type, String parameter) {
        return isArray(type) ? parameter + "::text[]" : parameter + "::text[]::" + type + "[]";
    }

    /** The unnested columns {@code prefix}0, {@code prefix}1, ..., array columns cast to their type. */
    private static String values(String prefix, List<String> columnTypes) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < columnTypes.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(prefix).append(i);
            if (isArray(columnTypes.get(i))) {
                b.append("::").append(columnTypes.get(i));
            }
        }
        return b.toString();
    }

    private static String aliases(int columns) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < columns; i++) {
            b.append(i == 0 ? "c" : ", c").append(i);
        }
        return b.toString();
    }

    /** Whether a column's type, as format_type names it, is an array type ("integer[]"). */
    private static boolean isArray(String type) {
        return type.endsWith("[]");
    }

    /** The batch statement of {@link KeyColumns.Form#DATABASE} keys (see the class comment). */
    private static String dedupingSql(
            SqlIdentifier table,
            List<String> columns,
            List<String> columnTypes,
            KeyColumns keys,
            int[] keyIndexes,
            String parameter) {
        String arrays = columnTypes.stream().map(t -> unnested(t, parameter)).collect(Collectors.joining(", ")) + ", "
                + parameter + "::text[]::boolean[]";
        StringBuilder aliases = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            aliases.append("c").append(i).append(", ");
        }
        List<String> sameKey = new ArrayList<>(); // the key as its unique index compares it
        List<String> lastKey = new ArrayList<>();
        for (int k = 0; k < keyIndexes.length; k++) {
            sameKey.add("c" + keyIndexes[k] + keys.collate(k));
            lastKey.add("eosink_last.c" + keyIndexes[k] + keys.collate(k));
        }
        String keyList = String.join(", ", sameKey);
        String quotedKeys = keys.names().stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        List<String> set = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            int k = keys.names().indexOf(columns.get(i));
            if (k < 0 || keys.form(k) == KeyColumns.Form.DATABASE) { // the key takes the last record's spelling
                set.add(SqlIdentifier.quote(columns.get(i)) + " = EXCLUDED." + SqlIdentifier.quote(columns.get(i)));
            }
        }
        String values = values("eosink_last.c", columnTypes);
        return "WITH eosink_batch AS (SELECT * FROM unnest(" + arrays + ") WITH ORDINALITY AS b(" + aliases
                + "eosink_delete, eosink_order)), "
                + "eosink_last AS (SELECT DISTINCT ON (" + keyList + ") * FROM eosink_batch ORDER BY " + keyList
                + ", eosink_order DESC), "
                + "eosink_deleted AS (DELETE FROM " + table.sql() + " WHERE (" + quotedKeys + ") IN (SELECT "
                + String.join(", ", lastKey) + " FROM eosink_last WHERE eosink_delete)) "
                + "INSERT INTO " + table.sql() + " ("
                + columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                + ") SELECT " + values + " FROM eosink_last WHERE NOT eosink_delete ON CONFLICT (" + quotedKeys
                + ") DO UPDATE SET " + String.join(", ", set);
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
     * column's value ({@link RowEncoder#keyText}: numbers normalized, so that 1.0 and 1.00 are one key;
     * char(n) without trailing spaces: see {@link KeyColumns}), or with several key columns a list of them. Keys are equal
     * exactly when these forms are; where the database's equality has no such form, keys equal here
     * are equal there too, and the batch's statement merges the rest.
     */
    Object keyOf(R row) {
        if (keyIndexes.length == 1) {
            return keys.part(0, encoder.keyText(row, keyIndexes[0]));
        }
        List<Object> key = new ArrayList<>(keyIndexes.length);
        for (int k = 0; k < keyIndexes.length; k++) {
            key.add(keys.part(k, encoder.keyText(row, keyIndexes[k])));
        }
        return key;
    }

    /** A row, as messages show it. */
    String show(R row) {
        return encoder.show(row);
    }

    /** Part {@code k} of a {@link #keyOf key}, as text. */
    private String keyPart(Object key, int k) {
        return keyIndexes.length == 1 ? (String) key : (String) ((List<?>) key).get(k);
    }

    /** Adds a record's row, or the delete of its {@link #keyOf key}, in place of what the batch held for it. */
    void add(Object key, R row, boolean delete, long position) {
        pending.remove(key); // re-inserted last: the batch keeps the order of the latest write per key
        pending.put(key, delete ? DELETE : row);
        if (firstPosition < 0) {
            firstPosition = position;
        }
        lastPosition = position;
    }

    int size() {
        return pending.size();
    }

    /**
     * The epoch was prepared with statements still buffered (held past its barrier): they are of an
     * earlier epoch, so a failure names this epoch's records from its first on.
     */
    void carriedIntoNextEpoch() {
        if (!pending.isEmpty()) {
            firstPosition = 0;
            lastPosition = 0;
        }
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
        if (dedupingSql != null) {
            executeDeduping(c);
            clear();
            return;
        }
        List<Object> rows = new ArrayList<>();
        List<Object> deletes = new ArrayList<>();
        for (Iterator<Map.Entry<Object, Object>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Object, Object> e = it.next();
            if (e.getValue() == DELETE) {
                deletes.add(e.getKey());
            } else {
                rows.add(e.getValue());
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

    /** The batch in pending order as one statement that the database merges by its own equality. */
    private void executeDeduping(Connection c) throws SQLException {
        if (deduping == null) {
            deduping = c.prepareStatement(dedupingSql);
        }
        int n = pending.size();
        String[][] values = new String[columns][n];
        String[] deletes = new String[n];
        int r = 0;
        for (Map.Entry<Object, Object> e : pending.entrySet()) {
            if (e.getValue() == DELETE) {
                deletes[r] = "t";
                for (int k = 0; k < keyIndexes.length; k++) {
                    values[keyIndexes[k]][r] = keyPart(e.getKey(), k);
                }
            } else {
                deletes[r] = "f";
                for (int col = 0; col < columns; col++) {
                    values[col][r] = text(e.getValue(), col);
                }
            }
            r++;
        }
        for (int col = 0; col < columns; col++) {
            deduping.setArray(col + 1, array(c, values[col]));
        }
        deduping.setArray(columns + 1, array(c, deletes));
        deduping.executeUpdate();
    }

    /**
     * Upserts rows of distinct keys, now, with one statement (nothing if there are none): rows of R, or
     * {@link TextRow}s of carried statements.
     */
    void upsertRows(Connection c, List<?> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        if (upsert == null) {
            upsert = c.prepareStatement(upsertSql);
        }
        for (int col = 0; col < columns; col++) {
            String[] values = new String[rows.size()];
            for (int r = 0; r < values.length; r++) {
                values[r] = text(rows.get(r), col);
            }
            upsert.setArray(col + 1, array(c, values));
        }
        upsert.executeUpdate();
    }

    /** Column {@code col} of a pending upsert, as the text the statements bind. */
    private String text(Object pendingValue, int col) {
        return pendingValue instanceof TextRow t ? t.values[col] : encoder.text(row(pendingValue), col);
    }

    /**
     * The batch, encoded to be carried past a barrier in checkpoint state ({@link CarriedStatements});
     * empty when it is empty. The batch itself stays as it is.
     */
    Optional<byte[]> carried() {
        if (pending.isEmpty()) {
            return Optional.empty();
        }
        List<CarriedStatements.Statement> carried = new ArrayList<>(pending.size());
        for (Map.Entry<Object, Object> e : pending.entrySet()) {
            String[] key = new String[keyIndexes.length];
            for (int k = 0; k < key.length; k++) {
                key[k] = keyPart(e.getKey(), k);
            }
            if (e.getValue() == DELETE) {
                carried.add(new CarriedStatements.Statement(true, key, null));
            } else {
                String[] values = new String[columns];
                for (int col = 0; col < columns; col++) {
                    values[col] = text(e.getValue(), col);
                }
                carried.add(new CarriedStatements.Statement(false, key, values));
            }
        }
        return Optional.of(new CarriedStatements(columnNames, keys.names(), carried).encode());
    }

    /**
     * Reads carried statements ({@link #carried()}, from a restored checkpoint).
     *
     * @throws CarriedStatementsRefused when the bytes are corrupt, or were carried for other columns
     *     or keys than this sink's
     */
    CarriedStatements readCarried(byte[] bytes) throws CarriedStatementsRefused {
        CarriedStatements carried = CarriedStatements.decode(bytes);
        boolean otherKey = carried.keyColumnCount() != keyIndexes.length
                || carried.keyColumns()
                        .map(names -> !names.equals(keys.names()))
                        .orElse(false);
        if (!carried.columns().equals(columnNames) || otherKey) {
            throw CarriedStatementsRefused.otherColumns(
                    carried.columns(),
                    carried.keyColumns()
                            .map(names -> "the key " + names)
                            .orElse(carried.keyColumnCount() + " key column(s)"),
                    columnNames,
                    "the key " + keys.names());
        }
        return carried;
    }

    /**
     * Runs carried statements in the open transaction, as one batch: they are of distinct keys, each
     * its key's last write.
     */
    void executeCarried(Connection c, CarriedStatements carried) throws SQLException {
        if (!pending.isEmpty()) {
            throw new IllegalStateException(
                    "carried statements run before any record, but " + pending.size() + " statement(s) are buffered");
        }
        for (CarriedStatements.Statement s : carried.statements()) {
            Object key = keyIndexes.length == 1 ? s.key()[0] : Arrays.asList((Object[]) s.key());
            pending.put(key, s.delete() ? DELETE : new TextRow(s.values()));
        }
        execute(c);
    }

    /** An upsert carried in checkpoint state: its columns' text, as the statements bind it. */
    private static final class TextRow {
        final String[] values;

        TextRow(String[] values) {
            this.values = values;
        }
    }

    void clear() {
        pending.clear();
        firstPosition = -1;
    }

    @SuppressWarnings("unchecked") // pending holds rows of R and the DELETE marker, told apart before
    private R row(Object pendingValue) {
        return (R) pendingValue;
    }

    private static Array array(Connection c, String[] values) throws SQLException {
        return c.createArrayOf("text", values);
    }
}
