/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.xa.carried.XaCarried;

import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Upserts and deletes by key into the open XA branch: the dialect's upsert of many rows per statement
 * ({@code INSERT ... ON DUPLICATE KEY UPDATE} on MariaDB) and batches of its delete by key ({@link
 * XaKeyedStatements}).
 *
 * <p>Invariants:
 *
 * <ol>
 *   <li>Per key, the last record wins: a later record of a key replaces its buffered statement, and
 *       the statements run in the order of each key's last record, so that keys the database takes
 *       as one (a case-insensitive collation) but Java does not still apply in record order. Each run of
 *       upserts, and of deletes, goes at once, in that order (a statement of many rows applies them
 *       in row order).
 *   <li>Statements may touch rows of this writer's previous branch, which is prepared and keeps its
 *       row locks until its commit: an upsert of such a key would wait for a commit that the very
 *       task thread that waits has to deliver, until the lock timeout. So they run only after {@link
 *       OwnCommits#await()}; while the commit is pending they are deferred, up to {@link
 *       #DEFER_BATCHES} batches (merging repeated keys meanwhile). When that commit can only come
 *       with a later checkpoint (the wait says no), they are held past the barrier, in checkpoint
 *       state ({@link #carried()}), one row per key, and run in a later epoch after the commit.
 *   <li>Memory: at most {@link #DEFER_BATCHES} batches of rows, or one row per key while held.
 * </ol>
 *
 * <p>Used by the task thread only.
 */
final class XaUpserts<IN> {

    /** Statements wait for the previous commit for at most this many batches. */
    static final int DEFER_BATCHES = 8;

    /** One buffered statement: the key's last row, a delete or an upsert, and where its record was. */
    private static final class Pending {
        final Object[] row;
        final boolean delete;
        final long position;

        Pending(Object[] row, boolean delete, long position) {
            this.row = row;
            this.delete = delete;
            this.position = position;
        }
    }

    private final InsertStatement.Columns<IN> statement;
    /** The statement, the key and each record's kind. */
    private final WriteMode.Upserts<IN> mode;

    private final List<String> keyColumns;
    private final int[] keyIndexes;
    private final int batchSize;

    /** By key, in the order of each key's last record. */
    private final Map<List<Object>, Pending> pending = new LinkedHashMap<>();

    private OwnCommits ownCommits = OwnCommits.NONE;
    /**
     * The wait for the previous commit said no in this epoch: the statements are held (past the
     * barrier, if need be) until {@link OwnCommits#pending()} turns false.
     */
    private boolean held;

    XaUpserts(WriteMode.Upserts<IN> mode, int batchSize) {
        this.mode = mode;
        this.statement = mode.table();
        this.keyColumns = mode.key();
        this.keyIndexes = keyColumns.stream()
                .mapToInt(c -> statement.columns().indexOf(c))
                .toArray();
        this.batchSize = batchSize;
    }

    void ownCommits(OwnCommits ownCommits) {
        this.ownCommits = ownCommits;
    }

    /** The columns of a row. */
    int columnCount() {
        return statement.columns().size();
    }

    /**
     * Buffers a record's statement. DELETE and UPDATE_BEFORE delete the key: Flink's planner sends an
     * UPDATE_BEFORE without its UPDATE_AFTER when the key leaves a query's result (a filter after an
     * aggregate), and when the UPDATE_AFTER (or an INSERT) follows, it replaces the delete as any later
     * record of a key does.
     *
     * @throws Exception what the row mapper threw, or an {@link IllegalArgumentException} for a
     *     null key column
     */
    void add(IN record, long position) throws Exception {
        RowKind kind = mode.kindOf(record);
        boolean delete = kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE;
        Object[] row = statement.toRow(record);
        List<Object> key = keyOf(row);
        pending.remove(key); // re-inserted: the order is that of each key's last record
        pending.put(key, new Pending(row, delete, position));
    }

    private List<Object> keyOf(Object[] row) {
        Object[] key = new Object[keyIndexes.length];
        for (int i = 0; i < keyIndexes.length; i++) {
            Object value = row[keyIndexes[i]];
            if (value == null) {
                throw new IllegalArgumentException("the upsert key column " + keyColumns.get(i) + " is null: a row "
                        + "without a key cannot be upserted or deleted");
            }
            // Arrays compare by identity; a byte[] key by its content.
            key[i] = value instanceof byte[] bytes ? ByteBuffer.wrap(bytes.clone()) : value;
        }
        return Arrays.asList(key);
    }

    /** Whether the buffered statements are due to run (a batch, unless the previous commit is pending). */
    boolean due() {
        int n = pending.size();
        if (n < batchSize) {
            return false;
        }
        return held
                ? !ownCommits.pending() || ownCommits.lookDue()
                : n >= DEFER_BATCHES * batchSize || !ownCommits.pending();
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** The smallest and largest epoch position of the buffered records, for messages. */
    long[] positions() {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Pending p : pending.values()) {
            first = Math.min(first, p.position);
            last = Math.max(last, p.position);
        }
        return new long[] {first, last};
    }

    /**
     * Runs the buffered statements once the writer's previous branch is committed.
     *
     * @return false when they are held instead: that commit comes only with a later checkpoint
     */
    boolean run(XaKeyedStatements keyed, XaIo io) throws SQLException, IOException {
        if (pending.isEmpty()) {
            return true;
        }
        if (!ownCommits.await()) {
            held = true;
            return false;
        }
        held = false;
        execute(pending.values(), keyed, io);
        pending.clear();
        return true;
    }

    /** Runs statements in order: each run of upserts, and each run of deletes, goes at once. */
    private void execute(Collection<Pending> statements, XaKeyedStatements keyed, XaIo io) throws SQLException {
        List<Object[]> run = new ArrayList<>();
        boolean deletes = false;
        for (Pending p : statements) {
            if (p.delete != deletes && !run.isEmpty()) {
                send(run, deletes, keyed, io);
                run.clear();
            }
            deletes = p.delete;
            run.add(p.delete ? keyValues(p.row) : p.row);
        }
        if (!run.isEmpty()) {
            send(run, deletes, keyed, io);
        }
    }

    private static void send(List<Object[]> run, boolean deletes, XaKeyedStatements keyed, XaIo io)
            throws SQLException {
        if (deletes) {
            keyed.delete(run, io);
        } else {
            keyed.upsert(run, io);
        }
    }

    /** The key columns' values of a row, in the key's order. */
    private Object[] keyValues(Object[] row) {
        Object[] key = new Object[keyIndexes.length];
        for (int i = 0; i < keyIndexes.length; i++) {
            key[i] = row[keyIndexes[i]];
        }
        return key;
    }

    /** The epoch was prepared: the next one waits for its commit, asking afresh. */
    void epochPrepared() {
        held = false;
    }

    /** Whether statements are buffered between epochs, held past the last barrier. */
    boolean holdsWrites() {
        return !pending.isEmpty();
    }

    /** How many statements (one per key) are buffered between epochs, held past the last barrier. */
    int heldWrites() {
        return pending.size();
    }

    /** The branch is being rolled back: forget what is buffered. */
    void clear() {
        pending.clear();
        held = false;
    }

    /**
     * The statements held past the barrier that just prepared the epoch, for checkpoint state; empty
     * when none are. They stay buffered and run in a later epoch, once the commit they wait for is done.
     */
    Optional<byte[]> carried() throws IOException {
        if (pending.isEmpty()) {
            return Optional.empty();
        }
        List<Object[]> rows = new ArrayList<>(pending.size());
        List<Boolean> deletes = new ArrayList<>(pending.size());
        for (Pending p : pending.values()) {
            rows.add(p.row);
            deletes.add(p.delete);
        }
        return Optional.of(XaCarried.encode(statement.columns(), keyColumns, rows, deletes));
    }

    /** Runs statements a restored checkpoint carried ({@link #carried()}), before any record of the run. */
    void executeCarried(XaCarried carried, XaKeyedStatements keyed, XaIo io) throws SQLException {
        List<Pending> statements = new ArrayList<>(carried.rows().size());
        for (int i = 0; i < carried.rows().size(); i++) {
            statements.add(new Pending(carried.rows().get(i), carried.deletes().get(i), -1));
        }
        execute(statements, keyed, io);
    }

    /** Reads carried statements, refusing those carried for other columns or another key. */
    XaCarried readCarried(byte[] bytes) throws CarriedStatementsRefused {
        XaCarried carried = XaCarried.decode(bytes);
        if (!carried.columns().equals(statement.columns())
                || !carried.keyColumns().equals(keyColumns)) {
            throw CarriedStatementsRefused.otherColumns(
                    carried.columns(), "the key " + carried.keyColumns(), statement.columns(), "the key " + keyColumns);
        }
        return carried;
    }
}
