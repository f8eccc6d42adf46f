/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.RemoteCommitterCommits;
import dev.eosink.testing.TcpProxy;

import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A writer whose committer runs in another JVM learns of its previous transaction's commit from the database,
 * within the epoch: the writer's gate lists the sink's prepared transactions through the session (on a
 * connection of its own, never inside the epoch's open transaction). What such a look must not do to the epoch,
 * on a real PostgreSQL: make the epoch's statements miss what the commit it saw made visible, be reported as
 * the record's fault when it fails, cost the epoch a subtransaction each, or leave locks with the prepared
 * transaction. {@link RemoteCommitterCommits} stands in for the gate: no signal, the database decides.
 */
class CommitSeenWithinTheEpochITCase {

    /** Keys the first transaction writes; the second epoch's statements touch them. */
    private static final int OLD = 500;
    /** Statements the BATCH upsert path defers before it first waits (eight batches of 50). */
    private static final int DEFERRED = 400;

    /** Looks while statements are held, one per {@code OwnCommitGate.LOOK_INTERVAL} (100 ms) in the real gate. */
    private static final int LOOKS = 80;

    /** The driver property that makes REPEATABLE READ the sessions' default, as a database's setting would. */
    private static final String REPEATABLE_READ = "-c default_transaction_isolation=repeatable\\ read";

    private final PostgresFixture db = PostgresFixture.get();

    /**
     * The database (or the sink's role) runs transactions at REPEATABLE READ by default, as some shops
     * configure it: the epoch's transaction then reads one snapshot, taken by its first statement, which is
     * the look itself when nothing ran before it. The look sees the first transaction still prepared; the
     * other JVM's committer commits it; the next look sees it committed, and the held deletes run. Their
     * snapshot predates that commit, so they do not see the rows it inserted, and delete nothing: the keys
     * stay, although every one of them was deleted after it was written.
     */
    @Test
    void deletesRunAfterACommitSeenWithinTheEpochRemoveItsRowsUnderRepeatableRead() throws Exception {
        String table = table("seen_rr");
        assertThat(transactionIsolation(REPEATABLE_READ))
                .as("the sessions' default")
                .isEqualTo("repeatable read");
        ExactlyOnceSink<long[]> sink = sink(db.jdbcUrl(), table, WriteMethod.BATCH, REPEATABLE_READ);
        Epochs epochs = new Epochs(table);
        try (WriterSession<long[]> writer = sink.database().openWriter(epochs.context);
                CommitSession otherJvm = sink.database().openCommitter(epochs.context)) {
            RemoteCommitterCommits remote = epochs.firstPrepared(writer);

            writer.epoch().begin(epochs.second);
            long position = 0;
            for (long k = 0; k < DEFERRED; k++) {
                // deletes of the prepared transaction's keys: held
                writer.epoch().write(new long[] {k, 0, 1}, position++);
            }
            assertThat(remote.looks())
                    .as("looks while the first transaction is prepared")
                    .isPositive();
            assertThat(remote.committedSeen()).isFalse();
            otherJvm.commit(epochs.first);
            for (long k = DEFERRED; k < OLD; k++) {
                writer.epoch().write(new long[] {k, 0, 1}, position++);
            }
            assertThat(remote.committedSeen())
                    .as("the commit seen within the epoch")
                    .isTrue();
            writer.epoch().flush();
            assertThat(writer.carriedWrites().orElseThrow().held().holdsWrites())
                    .as("nothing carried past the barrier")
                    .isFalse();
            writer.epoch().prepare(epochs.second, position);
            otherJvm.commit(epochs.second);
        }

        assertThat(db.preparedGids(TransactionId.sinkPrefix(epochs.sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table))
                .as("rows left: every key was deleted after its insert")
                .isZero();
    }

    /**
     * The same snapshot, with the commit proved by the signal of a committer in this JVM (what the gate hears
     * when the committer runs in the writer's task or beside it), not by a look: under REPEATABLE READ the
     * epoch's COPY of new keys, which goes on while the previous commit is pending, takes the snapshot; the
     * committer commits; the deletes that waited for that commit run with the older snapshot and miss the rows
     * it inserted. So the snapshot, not the look, is what the epoch's statements must not be bound to.
     */
    @Test
    void deletesRunAfterACommitSignalledWithinTheEpochRemoveItsRowsUnderRepeatableRead() throws Exception {
        String table = table("signal_rr");
        int old = 2_500; // with COPY on, statements run in quarter chunks of 2,500 once nothing is pending
        int newKeys = 16_384 + 100; // the window, then a COPY chunk
        ExactlyOnceSink<long[]> sink = sink(db.jdbcUrl(), table, WriteMethod.COPY, REPEATABLE_READ);
        Epochs epochs = new Epochs(table);
        try (WriterSession<long[]> writer = sink.database().openWriter(epochs.context);
                CommitSession committer = sink.database().openCommitter(epochs.context)) {
            writer.recovery().claim(0, 10_000);
            boolean[] pending = {false};
            writer.epoch().ownCommits(new OwnCommits() {
                @Override
                public boolean pending() {
                    return pending[0];
                }

                @Override
                public boolean await() {
                    return !pending[0];
                }
            });
            writer.epoch().begin(epochs.first);
            for (long k = 0; k < old; k++) {
                writer.epoch().write(new long[] {k, 1, 0}, k);
            }
            writer.epoch().flush();
            writer.epoch().prepare(epochs.first, old);
            pending[0] = true;

            writer.epoch().begin(epochs.second);
            long position = 0;
            for (long k = 0; k < newKeys; k++) {
                writer.epoch().write(new long[] {100_000 + k, 4, 0}, position++); // COPY goes on meanwhile
            }
            committer.commit(epochs.first);
            pending[0] = false; // its signal
            for (long k = 0; k < old; k++) {
                writer.epoch().write(new long[] {k, 0, 1}, position++); // deletes of the committed transaction's keys
            }
            writer.epoch().flush();
            writer.epoch().prepare(epochs.second, position);
            committer.commit(epochs.second);
        }

        assertThat(db.preparedGids(TransactionId.sinkPrefix(epochs.sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE v = 4")).isEqualTo(newKeys);
        assertThat(db.count("SELECT count(*) FROM " + table))
                .as("rows left: the old keys were deleted")
                .isEqualTo(newKeys);
    }

    /**
     * The network fails during a look within the epoch (here: the connection is cut as the listing's
     * answer comes back). The epoch fails, as it must; but the message blames the record being written:
     * the PostgreSQL write path takes any exception other than the database's for one the row mapper or
     * statement builder threw, and says the record could not be turned into statement parameters and that
     * the job fails the same way after every restart.
     */
    @Test
    void aLookThatFailsWithinTheEpochIsNotBlamedOnTheRecord() throws Exception {
        String table = table("seen_cut");
        Epochs epochs = new Epochs(table);
        Throwable thrown;
        try (TcpProxy proxy = TcpProxy.to(db.jdbcUrl())) {
            ExactlyOnceSink<long[]> sink = sink(proxy.jdbcUrl(db.jdbcUrl()), table, WriteMethod.BATCH);
            try (WriterSession<long[]> writer = sink.database().openWriter(epochs.context)) {
                epochs.firstPrepared(writer);
                proxy.cutWhenClientSends("pg_prepared_xacts");
                writer.epoch().begin(epochs.second);
                thrown = catchThrowable(() -> {
                    for (long k = 0; k < OLD; k++) {
                        writer.epoch().write(new long[] {k, 2, 0}, k); // the first look comes with the 400th
                    }
                });
            }
        }
        db.execute("COMMIT PREPARED '" + epochs.first + "'"); // the other JVM's committer

        assertThat(db.preparedGids(TransactionId.sinkPrefix(epochs.sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE v = 1")).isEqualTo(OLD);
        assertThat(db.count("SELECT count(*) FROM " + table)).isEqualTo(OLD);
        assertThat(thrown)
                .as("the epoch fails")
                .isInstanceOf(SinkException.class)
                .hasMessageContaining("could not list prepared transactions")
                .hasMessageNotContaining("the row mapper or statement builder threw")
                .hasMessageNotContaining("The record could not be turned into statement parameters");
    }

    /**
     * COPY upserts: statements held for a commit that the database does not show yet (the checkpoint is still
     * running, or was aborted, or the committer in the other JVM is slow), while new keys stream by COPY. Each
     * look due (the real gate: one per 100 ms) ends the COPY chunk to free the connection, and the next new key
     * starts another chunk under another savepoint: a subtransaction per look. PostgreSQL tracks 64 per
     * transaction cheaply; past them the transaction's subtransactions overflow, which slows every snapshot on
     * the server while it is open and prepared (docs/design-and-recovery.md counts on about 32 chunks per
     * epoch). 80 looks are 8 s of an epoch whose previous commit is not seen yet.
     */
    @Test
    void looksWhileStatementsAreHeldDoNotOverflowTheEpochsSubtransactions() throws Exception {
        String table = table("seen_subx");
        int old = 20_000; // with COPY on, the statements are deferred up to eight quarter chunks (2,500 each)
        int window = 16_384; // new keys held back before COPY (UpsertWriter.WINDOW_ROWS)
        ExactlyOnceSink<long[]> sink = sink(db.jdbcUrl(), table, WriteMethod.COPY);
        Epochs epochs = new Epochs(table);
        boolean overflowed;
        int subtransactions;
        try (WriterSession<long[]> writer = sink.database().openWriter(epochs.context);
                CommitSession otherJvm = sink.database().openCommitter(epochs.context)) {
            writer.recovery().claim(0, 10_000);
            TickedLooks looks = new TickedLooks(writer, epochs.first);
            writer.epoch().ownCommits(looks);
            writer.epoch().begin(epochs.first);
            for (long k = 0; k < old; k++) {
                writer.epoch().write(new long[] {k, 1, 0}, k);
            }
            writer.epoch().flush();
            writer.epoch().prepare(epochs.first, old);
            looks.prepared = true;

            writer.epoch().begin(epochs.second);
            long position = 0;
            for (long k = 0; k < old; k++) {
                // the last one waits, and the wait gives up: held
                writer.epoch().write(new long[] {k, 2, 0}, position++);
            }
            for (long k = 0; k < window; k++) {
                writer.epoch().write(new long[] {100_000 + k, 4, 0}, position++); // new keys fill the window
            }
            for (int i = 0; i < LOOKS; i++) {
                writer.epoch().write(new long[] {100_000 + window + i, 4, 0}, position++); // one more row for COPY
                looks.due = true; // 100 ms passed
                writer.epoch().write(new long[] {i, 3, 0}, position++); // a held key: the look is due
            }
            assertThat(looks.looks)
                    .as("looks while the first transaction is prepared")
                    .isEqualTo(LOOKS);
            try (Connection c = db.connect();
                    PreparedStatement s = c.prepareStatement(
                            "SELECT (pg_stat_get_backend_subxact(b.id)).* FROM pg_stat_get_backend_idset() AS b(id) "
                                    + "WHERE pg_stat_get_backend_pid(b.id) = (SELECT pid FROM pg_stat_activity "
                                    + "WHERE application_name = ?)")) {
                s.setString(1, "eosink/" + epochs.sinkId + "/0/writer");
                try (ResultSet rs = s.executeQuery()) {
                    assertThat(rs.next()).as("the writer's backend").isTrue();
                    subtransactions = rs.getInt(1);
                    overflowed = rs.getBoolean(2);
                }
            }
            otherJvm.commit(epochs.first);
            looks.due = true;
            writer.epoch().write(new long[] {0, 3, 0}, position++); // the look shows the commit: the statements run
            writer.epoch().flush();
            assertThat(writer.carriedWrites().orElseThrow().held().holdsWrites())
                    .isFalse();
            writer.epoch().prepare(epochs.second, position);
            otherJvm.commit(epochs.second);
        }

        assertThat(db.preparedGids(TransactionId.sinkPrefix(epochs.sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table)).isEqualTo(old + window + LOOKS);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE v = 3")).isEqualTo(LOOKS);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE v = 2")).isEqualTo(old - LOOKS);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE v = 4")).isEqualTo(window + LOOKS);
        assertThat(overflowed)
                .as("the epoch's subtransactions overflowed (%d after %d looks)", subtransactions, LOOKS)
                .isFalse();
    }

    /**
     * The look reads pg_prepared_xacts inside the epoch's transaction. A query's relation locks last until
     * the transaction ends, and PREPARE TRANSACTION hands them to the prepared transaction: the view and the
     * shared catalogs it joins (pg_authid, pg_database) stay locked until COMMIT PREPARED, by every such epoch
     * of a busy stream, and by a dead job's prepared transaction until someone resolves it. A VACUUM FULL or
     * REINDEX of those catalogs then waits, and every login queues behind it.
     */
    @Test
    void aLookWithinTheEpochLeavesNoCatalogLocksWithThePreparedTransaction() throws Exception {
        String table = table("seen_locks");
        ExactlyOnceSink<long[]> sink = sink(db.jdbcUrl(), table, WriteMethod.BATCH);
        Epochs epochs = new Epochs(table);
        List<String> locked = new ArrayList<>();
        try (WriterSession<long[]> writer = sink.database().openWriter(epochs.context);
                CommitSession otherJvm = sink.database().openCommitter(epochs.context)) {
            RemoteCommitterCommits remote = epochs.firstPrepared(writer);
            writer.epoch().begin(epochs.second);
            long position = 0;
            for (long k = 0; k < DEFERRED; k++) {
                writer.epoch().write(new long[] {k, 2, 0}, position++);
            }
            assertThat(remote.looks()).isPositive();
            otherJvm.commit(epochs.first);
            for (long k = DEFERRED; k < OLD; k++) {
                writer.epoch().write(new long[] {k, 2, 0}, position++);
            }
            assertThat(remote.committedSeen()).isTrue();
            writer.epoch().flush();
            writer.epoch().prepare(epochs.second, position);
            try (Connection c = db.connect();
                    PreparedStatement s = c.prepareStatement(
                            "SELECT DISTINCT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                                    + "WHERE l.virtualtransaction = (SELECT x.virtualtransaction FROM pg_locks x "
                                    + "JOIN pg_prepared_xacts p ON x.transactionid = p.transaction "
                                    + "WHERE x.locktype = 'transactionid' AND p.gid = ?) ORDER BY 1")) {
                s.setString(1, epochs.second.toString());
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        locked.add(rs.getString(1));
                    }
                }
            }
            otherJvm.commit(epochs.second);
        }

        assertThat(db.preparedGids(TransactionId.sinkPrefix(epochs.sinkId)))
                .as("prepared transactions left")
                .isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE v = 2")).isEqualTo(OLD);
        assertThat(db.count("SELECT count(*) FROM " + table)).isEqualTo(OLD);
        assertThat(locked)
                .as("relations the prepared transaction keeps locked")
                .contains(table)
                .doesNotContain("pg_authid", "pg_database", "pg_prepared_xacts");
    }

    /** The two epochs of one writer, subtask 0 of 1, named as the writer names them. */
    private final class Epochs {
        final String sinkId;
        final SubtaskContext context;
        final TransactionId first;
        final TransactionId second;

        Epochs(String table) {
            this.sinkId = table.replace('_', '-');
            this.context = new SubtaskContext(sinkId, 0, 1, 0, new JobRun("seen-within-epoch", OptionalLong.empty()));
            String run = TransactionId.newRunToken(context.execution());
            this.first = new TransactionId(sinkId, 0, 1, run);
            this.second = new TransactionId(sinkId, 0, 2, run);
        }

        /** Claims, writes keys 0 to {@link #OLD} - 1 at value 1 in the first transaction and prepares it. */
        RemoteCommitterCommits firstPrepared(WriterSession<long[]> writer) throws IOException {
            writer.recovery().claim(0, 10_000);
            RemoteCommitterCommits remote = new RemoteCommitterCommits(writer, first);
            writer.epoch().ownCommits(remote);
            writer.epoch().begin(first);
            for (long k = 0; k < OLD; k++) {
                writer.epoch().write(new long[] {k, 1, 0}, k);
            }
            writer.epoch().flush();
            writer.epoch().prepare(first, OLD);
            remote.prepared();
            return remote;
        }
    }

    /**
     * The gate's looks, paced by the test instead of a clock: a look is due only after the test said that
     * {@code OwnCommitGate.LOOK_INTERVAL} passed; a wait gives up at once, as the real one does after its bound.
     */
    private static final class TickedLooks implements OwnCommits {
        private final WriterSession<?> session;
        private final TransactionId previous;
        boolean prepared;
        boolean due;
        boolean committedSeen;
        int looks;

        TickedLooks(WriterSession<?> session, TransactionId previous) {
            this.session = session;
            this.previous = previous;
        }

        @Override
        public boolean pending() {
            return prepared && !committedSeen;
        }

        @Override
        public boolean lookDue() {
            return pending() && due;
        }

        @Override
        public boolean await() throws IOException {
            if (lookDue()) {
                due = false;
                looks++;
                committedSeen = !session.recovery().listPrepared().contains(previous);
            }
            return !pending();
        }
    }

    /** Records are {key, value, 1 for a delete}. */
    private ExactlyOnceSink<long[]> sink(String jdbcUrl, String table, WriteMethod method, String... options) {
        PostgresSinkBuilder<long[]> builder = PostgresSink.<long[]>builder()
                .jdbcUrl(jdbcUrl)
                .username(db.user())
                .password(db.password())
                .sinkId(table.replace('_', '-'))
                .table(table)
                .columns("k", "v")
                .rows(r -> new Object[] {r[0], r[1]})
                .upsert("k")
                .changelog(r -> r[2] == 1 ? RowKind.DELETE : RowKind.INSERT)
                .writeMethod(method)
                .batchSize(50)
                .claimWait(Duration.ofSeconds(10));
        for (String option : options) {
            builder.property("options", option);
        }
        return builder.build();
    }

    private String table(String prefix) {
        String table = prefix + "_" + System.nanoTime() % 100_000;
        db.execute("CREATE TABLE " + table + " (k bigint PRIMARY KEY, v bigint NOT NULL)");
        return table;
    }

    /** transaction_isolation of a new session opened with {@code options}. */
    private String transactionIsolation(String options) throws Exception {
        Properties properties = db.connectionProperties();
        properties.setProperty("options", options);
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), properties);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW transaction_isolation")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
