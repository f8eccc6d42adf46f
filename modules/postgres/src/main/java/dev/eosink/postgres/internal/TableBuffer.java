/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.postgres.carried.RoutedCarried;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;

/**
 * One routed table's changes in a {@link TablesPath}: the last upsert or delete of each key, in an {@link
 * UpsertBuffer} of the route's {@code Object[]} rows, until the path runs them.
 */
final class TableBuffer {

    private final RoutedTable table;
    private final UpsertBuffer<Object[]> buffer;
    /** Whether a NOT DEFERRABLE foreign key of a routed table refers to this one ({@link TableOrder#isParent}). */
    private final boolean parent;

    private final int[] keyIndexes;
    /** What a failure of this table's statements reads like: it names this table. */
    private final WriteErrors errors;
    /** A truncation was routed since the last run: the rows go before the buffered changes run. */
    private boolean truncated;

    TableBuffer(RoutedTable table, UpsertBuffer<Object[]> buffer, boolean parent) {
        this.table = table;
        this.buffer = buffer;
        this.parent = parent;
        this.keyIndexes = table.keyIndexes();
        this.errors = new WriteErrors("table " + table.table() + " (routed)");
    }

    RoutedTable table() {
        return table;
    }

    WriteErrors errors() {
        return errors;
    }

    boolean parent() {
        return parent;
    }

    /** Buffers the upsert of {@code row}, one value per column, in place of what its key had. */
    void upsert(Object[] row, long position) {
        if (row == null || row.length != table.columns().size()) {
            throw new IllegalArgumentException("an upsert of table " + table.name() + " takes "
                    + table.columns().size() + " values, one per column " + table.columns() + ", in that order; got "
                    + (row == null ? "null" : row.length + ": " + Arrays.deepToString(row)));
        }
        checkKey(row, "upsert");
        buffer.add(buffer.keyOf(row), row.clone(), false, position);
    }

    private void checkKey(Object[] row, String what) {
        for (int k = 0; k < keyIndexes.length; k++) {
            if (row[keyIndexes[k]] == null) {
                throw new IllegalArgumentException("key column value is null: a" + (what.equals("upsert") ? "n " : " ")
                        + what + " of table " + table.name() + " gives none for its key column "
                        + table.key().get(k)
                        + " (of " + table.key() + "); a key must have every value");
            }
        }
    }

    /** Buffers the delete of the row whose key columns hold {@code key}, in place of what its key had. */
    void delete(Object[] key, long position) {
        if (key == null || key.length != keyIndexes.length) {
            throw new IllegalArgumentException("a delete of table " + table.name() + " takes " + keyIndexes.length
                    + " values, one per key column " + table.key() + ", in that order; got "
                    + (key == null ? "null" : key.length + ": " + Arrays.deepToString(key)));
        }
        Object[] row = new Object[table.columns().size()];
        for (int k = 0; k < keyIndexes.length; k++) {
            row[keyIndexes[k]] = key[k];
        }
        checkKey(row, "delete");
        buffer.add(buffer.keyOf(row), row, true, position);
    }

    int size() {
        return buffer.size();
    }

    /** Drops the buffered changes; the next run deletes every row first. */
    void truncate() {
        buffer.clear();
        truncated = true;
    }

    boolean truncated() {
        return truncated;
    }

    /** Deletes every row, in the open transaction, if a truncation was routed: see {@link #truncate}. */
    void executeTruncate(Connection c) throws SQLException {
        if (truncated) {
            try (java.sql.Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM " + table.table().sql());
            }
            truncated = false;
        }
    }

    long firstPosition() {
        return buffer.firstPosition();
    }

    long lastPosition() {
        return buffer.lastPosition();
    }

    void executeUpserts(Connection c) throws SQLException {
        buffer.executeUpserts(c);
    }

    void executeDeletes(Connection c) throws SQLException {
        buffer.executeDeletes(c);
    }

    /** This table's changes, to carry past a barrier, its truncation first ({@link RoutedCarried}); empty when none. */
    Optional<byte[]> carried() {
        return truncated ? Optional.of(RoutedCarried.truncated(buffer.carried())) : buffer.carried();
    }

    /**
     * Buffers what a restored state carried for this table, before any record; with {@code widened}, also changes
     * carried for some of its columns (an evolving table that gained columns since: they get null).
     */
    void loadCarried(byte[] carried, boolean widened) throws CarriedStatementsRefused {
        truncated = RoutedCarried.isTruncated(carried);
        Optional<byte[]> statements = RoutedCarried.statementsOf(carried);
        if (statements.isPresent()) {
            buffer.loadCarried(buffer.readCarried(statements.get(), widened));
        }
    }

    void carriedIntoNextEpoch() {
        buffer.carriedIntoNextEpoch();
    }

    void clear() {
        buffer.clear();
        truncated = false;
    }
}
