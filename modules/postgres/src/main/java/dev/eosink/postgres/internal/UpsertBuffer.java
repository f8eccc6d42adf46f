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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    /** The batch's statements, as text. */
    private final UpsertSql sql;

    private final int columns;
    /** The column names, which carried statements name too (see {@link CarriedStatements}). */
    private final List<String> columnNames;

    private final int[] keyIndexes;
    private final KeyColumns keys;
    private final RowEncoder<R> encoder;
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
        this.keys = keys;
        this.encoder = encoder;
        this.columns = columns.size();
        this.columnNames = List.copyOf(columns);
        this.keyIndexes = keys.names().stream().mapToInt(columns::indexOf).toArray();
        this.sql = new UpsertSql(table, columns, columnTypes, keys, keyIndexes);
    }

    /**
     * The upsert with NULL arrays instead of parameters, to EXPLAIN at start. Not by replacing "?" in
     * the statement: a quoted column name may contain one.
     */
    String upsertSqlWithNulls() {
        return sql.upsertWithNulls;
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
        executeUpserts(c);
        executeDeletes(c);
        clear();
    }

    /**
     * Runs the batch's upserts in the open transaction, keeping the batch: a sink of many tables orders every
     * table's upserts and deletes for its foreign keys ({@link #executeDeletes}), then {@link #clear}s. Where the
     * database merges keys (a deduping statement), the whole batch runs here and is emptied.
     */
    void executeUpserts(Connection c) throws SQLException {
        if (pending.isEmpty()) {
            return;
        }
        if (sql.deduping != null) {
            executeDeduping(c);
            clear();
            return;
        }
        List<Object> rows = new ArrayList<>();
        for (Object value : pending.values()) {
            if (value != DELETE) {
                rows.add(value);
            }
        }
        upsertRows(c, rows);
    }

    /** Runs the batch's deletes in the open transaction, keeping the batch (see {@link #executeUpserts}). */
    void executeDeletes(Connection c) throws SQLException {
        if (pending.isEmpty()) {
            return;
        }
        List<Object> deletes = new ArrayList<>();
        for (Map.Entry<Object, Object> e : pending.entrySet()) {
            if (e.getValue() == DELETE) {
                deletes.add(e.getKey());
            }
        }
        if (!deletes.isEmpty()) {
            if (delete == null) {
                delete = c.prepareStatement(sql.delete);
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
    }

    /** The batch in pending order as one statement that the database merges by its own equality. */
    private void executeDeduping(Connection c) throws SQLException {
        if (deduping == null) {
            deduping = c.prepareStatement(sql.deduping);
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
            upsert = c.prepareStatement(sql.upsert);
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
        return readCarried(bytes, false);
    }

    /**
     * Reads carried statements; with {@code fewerColumns}, also those carried for some of this buffer's columns (a
     * table widened since: {@link #loadCarried} gives the others null), the key the same.
     */
    CarriedStatements readCarried(byte[] bytes, boolean fewerColumns) throws CarriedStatementsRefused {
        CarriedStatements carried = CarriedStatements.decode(bytes);
        boolean otherKey = carried.keyColumnCount() != keyIndexes.length
                || carried.keyColumns()
                        .map(names -> !names.equals(keys.names()))
                        .orElse(false);
        boolean fits = fewerColumns
                ? columnNames.containsAll(carried.columns())
                        && carried.keyColumns().isPresent()
                : carried.columns().equals(columnNames);
        if (!fits || otherKey) {
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
        loadCarried(carried);
        execute(c);
    }

    /** Buffers carried statements, before any record, to run with the next {@link #execute}. */
    void loadCarried(CarriedStatements carried) {
        if (!pending.isEmpty()) {
            throw new IllegalStateException(
                    "carried statements run before any record, but " + pending.size() + " statement(s) are buffered");
        }
        // Where each of this buffer's columns is among the carried ones: -1 for a column added since (null).
        int[] from = columnNames.stream().mapToInt(carried.columns()::indexOf).toArray();
        boolean same = carried.columns().equals(columnNames);
        for (CarriedStatements.Statement s : carried.statements()) {
            Object key = keyIndexes.length == 1 ? s.key()[0] : Arrays.asList((Object[]) s.key());
            pending.put(key, s.delete() ? DELETE : new TextRow(same ? s.values() : widened(s.values(), from)));
        }
    }

    private static String[] widened(String[] values, int[] from) {
        String[] row = new String[from.length];
        for (int i = 0; i < from.length; i++) {
            row[i] = from[i] < 0 ? null : values[from[i]];
        }
        return row;
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
