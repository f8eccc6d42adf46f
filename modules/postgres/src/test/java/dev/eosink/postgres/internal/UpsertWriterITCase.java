/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.spi.OwnCommits;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.carried.CarriedStatements;
import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.postgres.row.RowEncoder;
import dev.eosink.testing.PostgresFixture;

import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * {@link UpsertWriter} driven directly on a real PostgreSQL connection (autocommit off, as the writer
 * session leaves it), without Flink: records are added with their position in the epoch, an epoch
 * ends with {@code flush()} and COMMIT (or PREPARE TRANSACTION, where the own-commit wait matters),
 * and after every epoch the table must equal the end state replayed from the same records in order.
 *
 * <p>Driving the writer directly lets the tests put a key exactly where they want it (in the window,
 * in an open COPY chunk, in a chunk that failed, in the statements), use a tiny {@link KeyFilter}
 * that saturates, gives false positives and is cleared, and look at the open transaction on the
 * writer's own connection between steps (only when no COPY is in progress: pgjdbc holds the
 * connection for an active COPY).
 *
 * <p>The connection's lock_timeout is 3 s (the writer session's is 60 s): a write that waits for a
 * row lock of this writer's own prepared transaction fails in seconds instead of hanging.
 */
class UpsertWriterITCase {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String GID_PREFIX = "upsertwriter-it/";

    private final PostgresFixture db = PostgresFixture.get();
    private String table;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void createTable(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("t").toLowerCase(Locale.ROOT);
        table = "uw_" + (method.length() > 30 ? method.substring(0, 30) : method) + "_" + SEQUENCE.incrementAndGet()
                + "_" + (System.nanoTime() % 100000);
        db.execute("CREATE TABLE " + table + " (k bigint PRIMARY KEY, v bigint NOT NULL, note text)");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        db.rollbackPrepared(GID_PREFIX + table + "/");
    }

    /** One writer on its own connection, and the end state its records must produce. */
    private final class Harness implements AutoCloseable {
        final Connection connection;
        final KeyFilter filter;
        final UpsertBuffer<Object[]> buffer;
        final UpsertWriter<Object[]> writer;
        /** k -> {v, note}: the replayed end state, committed or not. */
        final Map<Long, Object[]> expected = new HashMap<>();

        long position;
        final List<String> summaries = new ArrayList<>();

        Harness(KeyFilter filter, int batchSize) throws SQLException {
            this.filter = filter;
            connection = db.connect();
            toClose.add(this);
            try (Statement s = connection.createStatement()) {
                s.execute("SET lock_timeout = '3s'");
            }
            connection.setAutoCommit(false);
            IoWatchdog io = new IoWatchdog(connection, Duration.ofSeconds(60), "UpsertWriterITCase " + table);
            SqlIdentifier target = new SqlIdentifier(null, table);
            List<String> columns = List.of("k", "v", "note");
            RowEncoder<Object[]> rows = MappedRows.encoder(
                    BinaryCopyEncoder.forTypes(columns, List.of("int8", "int8", "text")),
                    List.of("int8", "int8", "text"));
            buffer = new UpsertBuffer<>(target, columns, List.of("bigint", "bigint", "text"), List.of("k"), rows);
            WatchedConnection watched = new WatchedConnection(connection, io, new CopyBacklog(null, 0, "test"));
            CopyStream<Object[]> copy = new CopyStream<>(watched, target, columns, rows, batchSize);
            writer = new UpsertWriter<>(watched, buffer, copy, batchSize, filter);
        }

        /** Rows already in the table before the writer runs (as if written before the job). */
        void preexisting(long from, long to, long value) {
            db.execute("INSERT INTO " + table + " SELECT g, " + value + ", 'old' FROM generate_series(" + from + ", "
                    + (to - 1) + ") g");
            for (long k = from; k < to; k++) {
                expected.put(k, new Object[] {value, "old"});
            }
        }

        void write(long k, long v, RowKind kind) throws Exception {
            Object[] row = {k, v, "n" + v};
            writer.add(row, kind, position++);
            if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
                expected.remove(k);
            } else {
                expected.put(k, new Object[] {v, "n" + v});
            }
        }

        void upsert(long k, long v) throws Exception {
            write(k, v, RowKind.INSERT);
        }

        /**
         * Deletes keys nobody ever wrote (they go to the statements, and change nothing) until the
         * statements ran, which ends any open COPY chunk first: after this no COPY is in progress.
         */
        void runStatementsNow(long firstUnusedKey) throws Exception {
            long k = firstUnusedKey;
            int guard = 0;
            do {
                write(k--, 0, RowKind.DELETE);
                assertThat(++guard)
                        .as("deletes needed before the statements ran")
                        .isLessThan(100_000);
            } while (buffer.size() > 0);
        }

        /** The value of {@code k} as this writer's open transaction sees it; null if absent. */
        Long valueInTransaction(long k) throws SQLException {
            try (PreparedStatement s = connection.prepareStatement("SELECT v FROM " + table + " WHERE k = ?")) {
                s.setLong(1, k);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : null;
                }
            }
        }

        /** Ends the epoch as the session does before PREPARE, then commits it. */
        void commitEpoch() throws Exception {
            writer.flush();
            connection.commit();
            endEpoch();
        }

        /** Ends the epoch with PREPARE TRANSACTION, as the session does at a barrier. */
        void prepareEpoch(String gid) throws Exception {
            writer.flush();
            try (Statement s = connection.createStatement()) {
                s.execute("PREPARE TRANSACTION " + SqlIdentifier.literal(gid));
            }
            endEpoch();
        }

        private void endEpoch() {
            summaries.add(writer.epochSummary());
            writer.epochPrepared();
            position = 0;
        }

        long copiedRows() {
            return summaries.stream().mapToLong(s -> summary(s, 1)).sum();
        }

        long redoneChunks() {
            return summaries.stream().mapToLong(s -> summary(s, 3)).sum();
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }

    private static final Pattern SUMMARY =
            Pattern.compile("(\\d+) row\\(s\\) by COPY in (\\d+) chunk\\(s\\), (\\d+) chunk\\(s\\) redone as upserts");

    private static long summary(String text, int group) {
        Matcher m = SUMMARY.matcher(text);
        assertThat(m.matches()).as("epoch summary '%s'", text).isTrue();
        return Long.parseLong(m.group(group));
    }

    private String gid(int epoch) {
        return GID_PREFIX + table + "/" + epoch;
    }

    /** COMMIT PREPARED from another connection, as the committer does. */
    private void commitPrepared(String gid) {
        db.execute("COMMIT PREPARED " + SqlIdentifier.literal(gid));
    }

    /** The committed table must equal {@code expected}: no key missing, none unexpected, every value the last write. */
    private void assertTableIs(Map<Long, Object[]> expected) throws SQLException {
        Map<Long, Object[]> actual = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v, note FROM " + table)) {
            while (rs.next()) {
                actual.put(rs.getLong(1), new Object[] {rs.getLong(2), rs.getString(3)});
            }
        }
        List<Long> missing = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<Long, Object[]> e : expected.entrySet()) {
            Object[] a = actual.get(e.getKey());
            if (a == null) {
                missing.add(e.getKey());
            } else if (!Objects.equals(a[0], e.getValue()[0]) || !Objects.equals(a[1], e.getValue()[1])) {
                wrong.add(e.getKey() + ": " + a[0] + "/" + a[1] + " instead of " + e.getValue()[0] + "/"
                        + e.getValue()[1]);
            }
        }
        List<Long> unexpected = actual.keySet().stream()
                .filter(k -> !expected.containsKey(k))
                .sorted()
                .toList();
        missing.sort(null);
        assertThat(missing).as("keys missing from %s", table).isEmpty();
        assertThat(unexpected).as("keys in %s that should not be there", table).isEmpty();
        assertThat(wrong)
                .as("keys of %s whose value is not the last write", table)
                .isEmpty();
        assertThat(actual).hasSameSizeAs(expected);
        assertThat(db.preparedGids(GID_PREFIX + table + "/"))
                .as("prepared transactions left")
                .isEmpty();
    }

    /**
     * A 2^8-bit filter saturates within every epoch (4,000 keys), answers "perhaps written" for many
     * new keys (they take the statements), and is cleared mid-epoch, right after statements ran with
     * no prepared transaction of ours pending (here never), once the window is sent and the chunk
     * ended. After each clear, keys written before look new again: they go to the window and by COPY,
     * meet their own rows (committed, or of this very transaction) on the unique index, and their
     * chunks are redone as upserts. Every epoch still ends in the exact last state of every key.
     */
    @Test
    void tinyFilterSaturatesGivesFalsePositivesAndIsClearedMidEpoch() throws Exception {
        Harness h = new Harness(new KeyFilter(8), 100);
        Random random = new Random(11);
        long value = 0;
        for (int epoch = 0; epoch < 6; epoch++) {
            long clearsBefore = h.filter.clears();
            // Statements run mid-epoch once 2,500 distinct keys gather (a quarter chunk): more keys than that.
            for (int i = 0; i < 15_000; i++) {
                long k = random.nextInt(4_000);
                int dice = random.nextInt(20);
                RowKind kind = dice < 2 ? RowKind.DELETE : dice == 2 ? RowKind.UPDATE_BEFORE : RowKind.UPDATE_AFTER;
                h.write(k, ++value, kind);
            }
            assertThat(h.filter.clears())
                    .as("filter cleared within epoch %d", epoch)
                    .isGreaterThan(clearsBefore);
            long clearsAtFlush = h.filter.clears();
            h.writer.flush();
            assertThat(h.filter.clears())
                    .as("never cleared by the flush before PREPARE")
                    .isEqualTo(clearsAtFlush);
            h.connection.commit();
            h.endEpoch();
            assertTableIs(h.expected);
        }
        // Clears make keys written before look new: their chunks meet them and are redone.
        assertThat(h.redoneChunks())
                .as("chunks redone after clears: %s", h.summaries)
                .isPositive();
    }

    /**
     * Every key is in the table before the writer starts (written by someone else), so every COPY
     * chunk fails on the unique index: each is rolled back to its savepoint and redone as upserts, and
     * COPY pauses, longer after each failure in a row. Nothing is ever stored by COPY, nothing is
     * lost, and every key ends with its last write; keys the writer never touches keep their value.
     */
    @Test
    void everyKeyAlreadyInTheTable() throws Exception {
        Harness h = new Harness(new KeyFilter(), 500);
        h.preexisting(0, 60_000, -1);
        h.preexisting(1_000_000, 1_000_100, -2); // never written by the writer
        long value = 0;
        for (int epoch = 0; epoch < 2; epoch++) {
            for (long k = epoch * 30_000L; k < (epoch + 1) * 30_000L; k++) {
                h.upsert(k, ++value);
                if (k % 10 == 9) {
                    h.upsert(k - 7, ++value); // a repeat, in the window or (further back) in a chunk
                }
            }
            h.commitEpoch();
            assertTableIs(h.expected);
        }
        assertThat(h.copiedRows()).as("rows stored by COPY: %s", h.summaries).isZero();
        assertThat(h.redoneChunks()).as("chunks redone: %s", h.summaries).isGreaterThanOrEqualTo(2);
    }

    /**
     * Deletes of keys still in the window (never sent) drop the held row and still delete the key in
     * the table (it may have been there before); a re-insert after such a delete goes as a statement
     * after the delete; an UPDATE_BEFORE followed by its UPDATE_AFTER ends as the UPDATE_AFTER. With
     * plenty of new keys around, so that some of them leave the window by COPY in the same epoch.
     */
    @Test
    void deletesOfKeysStillInTheWindowThenReinserts() throws Exception {
        Harness h = new Harness(new KeyFilter(), 200);
        h.preexisting(3, 4, -3);
        h.preexisting(4, 5, -4);
        h.preexisting(7, 8, -7);
        h.preexisting(8, 9, -8);

        h.upsert(1, 10); // new: held in the window
        h.write(1, 0, RowKind.DELETE); // dropped from the window, delete sent
        h.upsert(1, 11); // re-insert after the delete
        h.upsert(2, 20);
        h.write(2, 0, RowKind.DELETE); // new key inserted then deleted: must not exist
        h.upsert(3, 30); // was in the table: held in the window like a new key
        h.write(3, 0, RowKind.DELETE); // the delete must still remove the old row
        h.upsert(4, 40);
        h.write(4, 0, RowKind.DELETE);
        h.upsert(4, 41);
        h.upsert(5, 50);
        h.write(5, 999, RowKind.UPDATE_BEFORE); // deletes the key, which its UPDATE_AFTER brings back
        h.write(5, 51, RowKind.UPDATE_AFTER);
        h.write(6, 0, RowKind.DELETE); // a delete of a key never written
        h.upsert(6, 60);
        h.write(7, 0, RowKind.DELETE); // a delete of a key in the table, never written by us
        h.upsert(7, 70);
        h.write(8, 0, RowKind.DELETE);
        for (long k = 100; k < 30_100; k++) { // new keys: the window overflows, chunks go by COPY
            h.upsert(k, k);
            if (k % 1_000 == 0) {
                h.write(k - 500, 0, RowKind.DELETE); // still in the window
                h.upsert(k - 500, -k); // and back
            }
        }
        h.commitEpoch();
        assertTableIs(h.expected);
        assertThat(h.copiedRows()).isPositive();

        // Next epoch: the same games with keys of the last one (all written: statements only).
        h.write(1, 0, RowKind.DELETE);
        h.upsert(2, 21);
        h.write(2, 0, RowKind.DELETE);
        h.upsert(2, 22);
        h.upsert(3, 31);
        h.write(4, 0, RowKind.DELETE);
        h.upsert(100, 1);
        h.write(100, 0, RowKind.DELETE);
        h.commitEpoch();
        assertTableIs(h.expected);
    }

    /**
     * One key's whole life within one epoch: written (held in the window), pushed out of the window
     * by 16,384 newer keys into an open COPY chunk, updated (a statement: the chunk ends first, so
     * the update finds the copied row), deleted, inserted again. The writer's own transaction shows
     * each step before the next; the committed end state is exact. Then the same with a key that was
     * in the table before, whose chunk fails on the unique index and is redone as upserts, before its
     * update, delete and re-insert.
     */
    @Test
    void keyCopiedThenUpdatedDeletedAndInsertedAgainInOneEpoch() throws Exception {
        Harness h = new Harness(new KeyFilter(), 500);
        h.preexisting(-2, -1, -20);
        for (long[] life : new long[][] {{-1, 1_000_000}, {-2, 2_000_000}}) {
            long k = life[0];
            long filler = life[1];
            h.upsert(k, 1);
            for (int i = 0; i < UpsertWriter.WINDOW_ROWS + 10; i++) {
                h.upsert(filler + i, i); // k leaves the window first, into a new chunk
            }
            h.upsert(k, 2); // a statement, while k's chunk is open
            h.runStatementsNow(-10_000_000 * (k == -1 ? 1 : 2));
            assertThat(h.valueInTransaction(k))
                    .as("key %d after COPY and update", k)
                    .isEqualTo(2);
            h.write(k, 0, RowKind.DELETE);
            h.runStatementsNow(-30_000_000 * (k == -1 ? 1 : 2));
            assertThat(h.valueInTransaction(k)).as("key %d after delete", k).isNull();
            h.upsert(k, 3);
            h.runStatementsNow(-50_000_000 * (k == -1 ? 1 : 2));
            assertThat(h.valueInTransaction(k)).as("key %d after re-insert", k).isEqualTo(3);
            h.upsert(k, 4); // and once more, left to the flush
            h.commitEpoch();
            assertTableIs(h.expected);
        }
        assertThat(h.summaries).hasSize(2);
        assertThat(summary(h.summaries.get(0), 1))
                .as("rows by COPY, first epoch")
                .isPositive();
        assertThat(summary(h.summaries.get(0), 3))
                .as("chunks redone, first epoch")
                .isZero();
        assertThat(summary(h.summaries.get(1), 3))
                .as("chunks redone, second epoch (key -2 was in the table)")
                .isPositive();
    }

    /**
     * An UPDATE_BEFORE deletes its key unless a later record of the key wins, as the planner's changelog
     * means it when a filter after an aggregate drops the key's UPDATE_AFTER; on every path a DELETE
     * takes: a key held in the window (new to the writer, or in the table before the job), a key in an
     * open COPY chunk, a key written by statements in this epoch, a key of an earlier epoch, a key the
     * writer never wrote. Followed by its UPDATE_AFTER in the same batch, the key ends as that; in the
     * next batch, the key is gone in between (the writer's own transaction shows it); in the next
     * epoch, the key is gone from the committed table until that epoch commits.
     *
     * <p>Failed while the writer skipped UPDATE_BEFORE: key 5 kept its copied row after its
     * UPDATE_BEFORE ("expected: null but was: 50L").
     */
    @Test
    void updateBeforeDeletesItsKeyUnlessALaterRecordOfItWins() throws Exception {
        Harness h = new Harness(new KeyFilter(), 200);
        h.preexisting(1, 2, -1);
        h.preexisting(4, 5, -4);
        h.preexisting(9, 11, -9);
        h.upsert(1, 10); // in the table before: held in the window like a new key
        h.write(1, 0, RowKind.UPDATE_BEFORE); // dropped from the window, and the old row deleted
        h.upsert(2, 20);
        h.write(2, 0, RowKind.UPDATE_BEFORE); // a new key, held, then gone
        h.upsert(3, 30);
        h.write(3, 0, RowKind.UPDATE_BEFORE);
        h.write(3, 31, RowKind.UPDATE_AFTER); // the same batch: the UPDATE_AFTER wins
        h.write(4, 0, RowKind.UPDATE_BEFORE); // in the table, never written by the writer
        h.write(40, 0, RowKind.UPDATE_BEFORE); // a key nobody ever wrote: nothing to delete
        h.upsert(5, 50);
        h.upsert(7, 70);
        h.upsert(8, 80);
        for (long k = 1_000; k < 1_000 + UpsertWriter.WINDOW_ROWS + 10; k++) {
            h.upsert(k, k); // 5, 7 and 8 leave the window into an open COPY chunk
        }
        h.write(5, 0, RowKind.UPDATE_BEFORE); // a statement: the chunk ends first
        h.runStatementsNow(-1_000_000);
        assertThat(h.valueInTransaction(5))
                .as("key 5, copied, after its UPDATE_BEFORE")
                .isNull();
        h.write(5, 52, RowKind.UPDATE_AFTER); // the next batch brings it back
        h.upsert(7, 71); // written by statements in this epoch
        h.runStatementsNow(-2_000_000);
        assertThat(h.valueInTransaction(5))
                .as("key 5 after its UPDATE_AFTER in the next batch")
                .isEqualTo(52);
        assertThat(h.valueInTransaction(7)).isEqualTo(71);
        h.write(7, 0, RowKind.UPDATE_BEFORE);
        h.runStatementsNow(-3_000_000);
        assertThat(h.valueInTransaction(7))
                .as("key 7, written by a statement, after its UPDATE_BEFORE")
                .isNull();
        h.write(9, 0, RowKind.UPDATE_BEFORE); // in the table before: a statement, as a delete
        h.write(10, 0, RowKind.UPDATE_BEFORE);
        h.upsert(10, 100); // and back, by an INSERT
        h.commitEpoch();
        assertTableIs(h.expected);
        assertThat(h.expected)
                .as("keys of the first epoch")
                .containsKeys(3L, 5L, 8L, 10L)
                .doesNotContainKeys(1L, 2L, 4L, 7L, 9L, 40L);

        // Keys of the last epoch, statements only. 8's UPDATE_AFTER comes in the epoch after its
        // UPDATE_BEFORE: the committed table has no key 8 in between.
        h.write(3, 0, RowKind.UPDATE_BEFORE);
        h.write(8, 0, RowKind.UPDATE_BEFORE);
        h.write(1_000, 0, RowKind.UPDATE_BEFORE);
        h.write(1_001, 0, RowKind.UPDATE_BEFORE);
        h.write(1_001, 1, RowKind.UPDATE_AFTER);
        h.commitEpoch();
        assertTableIs(h.expected);
        assertThat(h.expected).doesNotContainKeys(3L, 8L, 1_000L).containsKey(1_001L);
        h.write(8, 81, RowKind.UPDATE_AFTER);
        h.commitEpoch();
        assertTableIs(h.expected);
        assertThat(h.expected.get(8L)).containsExactly(81L, "n81");
        assertThat(h.copiedRows()).as("rows by COPY: %s", h.summaries).isPositive();
    }

    /**
     * Like the writer's {@code OwnCommitGate}: the previous epoch is pending while its prepared
     * transaction is not committed, and {@link #await()} returns once it is. Here await commits it
     * (from another connection, as the committer would once the task's mailbox delivers the
     * checkpoint's completion while the writer waits).
     */
    private final class PreparedEpochs implements OwnCommits {
        /** The prepared epochs not committed yet, oldest first: they commit together, in order. */
        final List<String> pendingGids = new ArrayList<>();

        String pendingGid;
        int awaitsWhilePending;
        /** The pending epoch's checkpoint was aborted: its commit cannot be waited for. */
        boolean aborted;

        final List<Runnable> atAwait = new ArrayList<>();

        void prepared(String gid) {
            pendingGid = gid;
            pendingGids.add(gid);
        }

        @Override
        public boolean pending() {
            return pendingGid != null;
        }

        @Override
        public boolean await() {
            if (pendingGid == null) {
                return true;
            }
            awaitsWhilePending++;
            if (aborted) {
                return false;
            }
            atAwait.forEach(Runnable::run);
            commitNow();
            return true;
        }

        /** The committer's commit arrives without anyone waiting for it: every pending epoch, in order. */
        void commitNow() {
            pendingGids.forEach(UpsertWriterITCase.this::commitPrepared);
            pendingGids.clear();
            pendingGid = null;
            aborted = false;
        }
    }

    /** Epoch 1 upserts keys 0..keys-1 and is prepared; its checkpoint is aborted, so nothing commits it yet. */
    private PreparedEpochs firstEpochPreparedAndAborted(Harness h, long keys) throws Exception {
        PreparedEpochs own = new PreparedEpochs();
        h.writer.ownCommits(own);
        for (long k = 0; k < keys; k++) {
            h.upsert(k, k);
        }
        h.prepareEpoch(gid(1));
        own.prepared(gid(1));
        own.aborted = true;
        return own;
    }

    /**
     * Epoch 1 is prepared and its checkpoint aborted: its commit comes only with the next completed
     * checkpoint. Epoch 2 updates and deletes epoch 1's keys: an update would wait for epoch 1's row
     * locks, a delete would not see the rows epoch 1 inserted and miss them. So the writer holds those
     * statements past epoch 2's barrier (epoch 2 is prepared without them, and they are what the
     * writer carries in the checkpoint's state), and runs them in epoch 3, once epochs 1 and 2 are
     * committed. The lock timeout is the test's 3 s: a statement run early would fail, or delete
     * nothing.
     */
    @Test
    void statementsThatMustFollowAnAbortedCheckpointsCommitAreHeldPastTheBarrier() throws Exception {
        Harness h = new Harness(new KeyFilter(), 100);
        PreparedEpochs own = firstEpochPreparedAndAborted(h, 1_000);

        for (long k = 0; k < 1_000; k++) {
            h.write(k, -k, k % 2 == 0 ? RowKind.DELETE : RowKind.UPDATE_AFTER);
        }
        for (long k = 5_000; k < 5_100; k++) {
            h.upsert(k, k); // new keys: by COPY, whatever is pending
        }
        h.writer.flush();
        assertThat(h.writer.carried()).as("held past the barrier").isPresent();
        assertThat(h.buffer.size()).isEqualTo(1_000);
        h.prepareEpoch(gid(2));
        own.prepared(gid(2));
        own.commitNow(); // the next checkpoint completed: both epochs commit

        h.upsert(6_000, 1); // epoch 3
        h.commitEpoch();
        assertTableIs(h.expected);
    }

    /**
     * What a writer carried in checkpoint state ({@link UpsertWriter#carried()}), written by a fresh
     * writer, as a restored one does before its first record, gives the table as of that barrier:
     * upserts and deletes of the keys the aborted epoch wrote, with SQL NULLs and text that needs
     * quoting.
     */
    @Test
    void carriedStatementsWrittenByARestoredWriterGiveTheStateAsOfTheBarrier() throws Exception {
        Harness h = new Harness(new KeyFilter(), 100);
        PreparedEpochs own = firstEpochPreparedAndAborted(h, 500);
        for (long k = 0; k < 500; k++) {
            if (k % 3 == 0) {
                h.write(k, -k, RowKind.DELETE);
            } else {
                Object[] row = {k, -k, k % 3 == 1 ? null : "quote ' \\ \" , {} \u00e9 " + k};
                h.writer.add(row, RowKind.UPDATE_AFTER, h.position++);
                h.expected.put(k, new Object[] {-k, row[2]});
            }
        }
        h.writer.flush();
        byte[] carried = h.writer.carried().orElseThrow();
        h.prepareEpoch(gid(2));
        own.prepared(gid(2));
        own.commitNow(); // what the restored committer does
        h.close(); // the old writer is gone, and its held statements with it

        Harness restored = new Harness(new KeyFilter(), 100);
        restored.writer.executeCarried(carried);
        restored.connection.commit();
        assertTableIs(h.expected);
    }

    /**
     * UPDATE_BEFOREs of keys the writer's previous, still prepared epoch inserted take the path of a
     * DELETE: run early, the delete would not see those rows and miss them. While that commit will
     * come, they wait for it (await commits epoch 1 here); when its checkpoint was aborted, they are
     * held past the next barrier, carried in checkpoint state as deletes (an UPDATE_BEFORE followed by
     * its UPDATE_AFTER as that upsert), and a restored writer that writes what was carried leaves the
     * table as of that barrier: keys of an UPDATE_BEFORE without its UPDATE_AFTER absent, until the
     * UPDATE_AFTER comes in a later epoch.
     *
     * <p>Failed while the writer skipped UPDATE_BEFORE: after epoch 2, keys 0 to 99 and 200 to 299
     * were still in the table.
     */
    @Test
    void updateBeforesOfTheUncommittedEpochsKeysWaitForItsCommitOrAreCarriedAsDeletes() throws Exception {
        Harness h = new Harness(new KeyFilter(), 100);
        PreparedEpochs own = new PreparedEpochs();
        h.writer.ownCommits(own);
        for (long k = 0; k < 300; k++) {
            h.upsert(k, k);
        }
        h.prepareEpoch(gid(1));
        own.prepared(gid(1)); // pending, and its commit will come: statements wait for it
        updateBeforesOf(h, 0);
        h.writer.flush();
        assertThat(own.awaitsWhilePending)
                .as("the statements waited for epoch 1's commit")
                .isEqualTo(1);
        h.prepareEpoch(gid(2));
        own.prepared(gid(2));
        own.commitNow();
        assertTableIs(h.expected);
        assertThat(h.expected).as("keys without their UPDATE_AFTER yet").doesNotContainKeys(0L, 99L, 200L, 299L);
        afterUpdatesOf(h, 0);
        h.commitEpoch();
        assertTableIs(h.expected);

        for (long k = 1_000; k < 1_300; k++) { // the same with epoch 3, whose checkpoint is aborted
            h.upsert(k, k);
        }
        h.prepareEpoch(gid(3));
        own.prepared(gid(3));
        own.aborted = true;
        updateBeforesOf(h, 1_000);
        for (long k = 5_000; k < 5_100; k++) {
            h.upsert(k, k); // new keys: by COPY, whatever is pending
        }
        h.writer.flush();
        byte[] carried = h.writer.carried().orElseThrow();
        assertThat(CarriedStatements.decode(carried).statements())
                .as("carried: 200 deletes, 100 upserts")
                .filteredOn(CarriedStatements.Statement::delete)
                .hasSize(200);
        h.prepareEpoch(gid(4));
        own.prepared(gid(4));
        own.commitNow(); // what the restored committer does
        h.close();

        Harness restored = new Harness(new KeyFilter(), 100);
        restored.writer.executeCarried(carried);
        restored.connection.commit();
        assertTableIs(h.expected);
        assertThat(h.expected)
                .doesNotContainKeys(1_000L, 1_099L, 1_200L, 1_299L)
                .containsKeys(1_100L, 1_199L);
        restored.expected.putAll(h.expected);
        afterUpdatesOf(restored, 1_000);
        restored.commitEpoch();
        assertTableIs(restored.expected);
    }

    /**
     * Of the 300 keys from {@code from}: UPDATE_BEFOREs of the first 100 alone, of the next 100 each
     * followed by its UPDATE_AFTER, of the last 100 with their UPDATE_AFTER left to {@link #afterUpdatesOf}.
     */
    private static void updateBeforesOf(Harness h, long from) throws Exception {
        for (long k = from; k < from + 300; k++) {
            h.write(k, 0, RowKind.UPDATE_BEFORE);
            if (k >= from + 100 && k < from + 200) {
                h.write(k, -k, RowKind.UPDATE_AFTER);
            }
        }
    }

    /** The UPDATE_AFTERs {@link #updateBeforesOf} left out. */
    private static void afterUpdatesOf(Harness h, long from) throws Exception {
        for (long k = from + 200; k < from + 300; k++) {
            h.write(k, -k, RowKind.UPDATE_AFTER);
        }
    }

    /**
     * Invariant 2: statements that touch rows of this writer's previous, still prepared epoch wait
     * for its commit ({@link OwnCommits#await()}), while COPY of new keys goes on meanwhile. Epoch 1
     * writes 25,000 keys and is prepared, not committed. Epoch 2 updates all of them and writes 20,000
     * new keys: the updates are deferred up to 8 batches, then wait for the commit (here: await
     * commits epoch 1); new keys are copied before that. A statement run before the commit would wait
     * for epoch 1's row locks and fail at the lock timeout.
     */
    @Test
    void statementsWaitForTheOwnCommitWhileCopyGoesOn() throws Exception {
        Harness h = new Harness(new KeyFilter(), 500);
        PreparedEpochs own = new PreparedEpochs();
        h.writer.ownCommits(own);
        for (long k = 0; k < 25_000; k++) {
            h.upsert(k, k);
        }
        h.prepareEpoch(gid(1));
        own.prepared(gid(1));
        long[] copiedAtAwait = {-1};
        own.atAwait.add(() -> copiedAtAwait[0] = summary(h.writer.epochSummary(), 1));

        int deferLimit = UpsertWriter.DEFER_BATCHES * Math.max(500, CopyChunks.MIN_CHUNK_ROWS / 4);
        for (long k = 0; k < deferLimit - 1; k++) {
            h.upsert(100_000 + k, k); // new keys: window, then COPY, with epoch 1 still prepared
            h.upsert(k, -k); // keys of epoch 1: statements, deferred
        }
        assertThat(own.awaitsWhilePending)
                .as("deferred statements ran before 8 batches gathered")
                .isZero();
        for (long k = deferLimit - 1; k < 25_000; k++) {
            h.upsert(k, -k);
        }
        assertThat(own.awaitsWhilePending)
                .as("statements waited for the commit at 8 batches")
                .isEqualTo(1);
        assertThat(copiedAtAwait[0])
                .as("rows copied (new keys) before the statements waited")
                .isPositive();
        h.prepareEpoch(gid(2));
        own.prepared(gid(2));
        own.commitNow();
        assertTableIs(h.expected);
    }

    /**
     * Invariant 3: the filter is never cleared at the flush before PREPARE. Right after that flush,
     * the epoch is a prepared transaction holding the row locks of every key it wrote; a cleared
     * filter would call those keys new, and next epoch, while that transaction is not committed yet
     * (the commit is delivered to the writer's own task thread; after a declined checkpoint it comes
     * only with the next completed one), such a key would go by COPY and the unique check would wait
     * for the prepared transaction: a self-deadlock until the lock timeout (60 s in the writer
     * session), then a failover.
     *
     * <p>Here: a 2^8-bit filter saturates in epoch 1, which is flushed and prepared: still saturated.
     * Epoch 2 rewrites epoch 1's keys while epoch 1 is still pending: they go as statements, which
     * await the own commit; the flush must not wait for epoch 1's locks.
     *
     * <p>Failed at 9c42193 (which cleared at the flush): the flush's COPY waited on the primary key
     * for epoch 1's prepared transaction and ended with "canceling statement due to lock timeout"
     * (55P03) after the test's 3 s.
     */
    @Test
    void filterClearedAtAFlushMustNotMakeCopyWaitForTheEpochBeingPrepared() throws Exception {
        Harness h = new Harness(new KeyFilter(8), 100);
        PreparedEpochs own = new PreparedEpochs();
        h.writer.ownCommits(own);
        for (long k = 0; k < 300; k++) {
            h.upsert(k, k);
        }
        assertThat(h.filter.saturated()).isTrue();
        h.prepareEpoch(gid(1));
        own.prepared(gid(1));
        assertThat(h.filter.saturated())
                .as("not cleared at the flush of epoch 1, which is prepared next")
                .isTrue();

        for (long k = 0; k < 300; k++) {
            h.upsert(k, 1_000 + k); // keys epoch 1 holds locked
        }
        h.upsert(5_000, 5_000); // and a new one
        long started = System.nanoTime();
        assertThatCode(() -> h.writer.flush())
                .as(
                        "flush of epoch 2 while epoch 1 is prepared (took %d ms)",
                        (System.nanoTime() - started) / 1_000_000)
                .doesNotThrowAnyException();
        h.prepareEpoch(gid(2));
        if (!db.preparedGids(gid(1)).isEmpty()) {
            commitPrepared(gid(1)); // the committer commits in checkpoint order
        }
        commitPrepared(gid(2));
        assertTableIs(h.expected);
    }
}
