package dev.eosink.core.protocol;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The writer half of the two-phase commit. Between two barriers every record goes into one open
 * database transaction; at the barrier ({@link #prepareCommit()}) that transaction is prepared under
 * a fresh {@link TransactionId} and handed to Flink as a {@link PreparedTransaction}. The writer
 * never commits: only the committer does, once the checkpoint is complete.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>An epoch with no record prepares nothing and emits no committable.
 *   <li>A transaction is named with {@code lastSnapshottedCheckpoint + 1}, never more than the
 *       checkpoint whose barrier prepares it (Flink calls {@code prepareCommit} before {@code
 *       snapshotState} of the same checkpoint).
 *   <li>Before the first record, the startup recovery ({@link RecoveryPlan}) has rolled back
 *       exactly the owned transactions no restored committer will commit, under the ownership
 *       guard of every subtask index involved.
 *   <li>At the first checkpoint after a restore, every owned transaction named at or before the
 *       restored checkpoint that is still prepared is rolled back: every restored committer has
 *       committed what it holds by then, so such a transaction is an orphan of another run of the
 *       same sink id ({@link RecoveryPlan#orphans}).
 *   <li>On close (cancel, failure) only the open, unprepared transaction is rolled back; prepared
 *       ones belong to checkpoints and are left to the committer or the next start.
 * </ul>
 */
public final class ExactlyOnceWriter<IN>
        implements CommittingSinkWriter<IN, PreparedTransaction>, StatefulSinkWriter<IN, WriterState> {

    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceWriter.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    private final WriterSession<IN> session;
    private final String run = TransactionId.newRunToken();

    /** The last checkpoint this writer snapshotted (or restored from); 0 before the first. */
    private long lastCheckpointId;

    /**
     * The startup decision, while some owned transactions it left to the restored committers may be
     * orphans; null once they are resolved (or if there were none).
     */
    private RecoveryPlan awaitingRestoredCommits;

    private long recordsInEpoch;

    /** The name of the open epoch's transaction, given to the session when the epoch began; null between epochs. */
    private TransactionId epochId;

    /**
     * How long a writer lets its task process other work (the commit of its previous transaction)
     * before writing rows that may wait for that transaction's locks. After a declined checkpoint the
     * commit only comes with the next completed checkpoint, which cannot happen while the writer
     * waits; then it writes anyway, and the database's lock timeout turns a real conflict into a
     * failover.
     */
    static final long OWN_COMMIT_WAIT_MILLIS = 30_000;

    /** The task's mailbox, to let it deliver commits while the session waits for one; null: never waits. */
    private final MailboxExecutor mailbox;

    /** This writer's last prepared transaction until it is known to be committed; see {@link OwnCommitGate}. */
    private TransactionId awaitingCommit;

    /** Of {@link #recordsInEpoch}, those already counted in {@link #numRecordsSend}. */
    private long recordsCountedAsSent;

    /**
     * Flink's standard sink metric (FLIP-33), which only the writer can count: records sent to the
     * database, into the open transaction, whether that transaction later commits or not. Counted
     * when the writer flushes (at every barrier and at end of input), because a batch may hold
     * records until then.
     */
    private final Counter numRecordsSend;

    public ExactlyOnceWriter(
            SubtaskContext context,
            SinkSettings settings,
            String target,
            WriterSession<IN> session,
            Collection<WriterState> restoredStates)
            throws IOException {
        this(context, settings, target, session, restoredStates, new SimpleCounter(), null);
    }

    public ExactlyOnceWriter(
            SubtaskContext context,
            SinkSettings settings,
            String target,
            WriterSession<IN> session,
            Collection<WriterState> restoredStates,
            Counter numRecordsSend)
            throws IOException {
        this(context, settings, target, session, restoredStates, numRecordsSend, null);
    }

    public ExactlyOnceWriter(
            SubtaskContext context,
            SinkSettings settings,
            String target,
            WriterSession<IN> session,
            Collection<WriterState> restoredStates,
            Counter numRecordsSend,
            MailboxExecutor mailbox)
            throws IOException {
        this.mailbox = mailbox;
        this.context = context;
        this.settings = settings;
        this.target = target;
        this.session = session;
        this.numRecordsSend = numRecordsSend;
        this.lastCheckpointId = context.restoredCheckpointId().orElse(0L);
        warnOnSinkIdChange(restoredStates);
        session.ownCommits(mailbox == null ? OwnCommits.NONE : new OwnCommitGate());
        try {
            recover();
        } catch (IOException | RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    private void warnOnSinkIdChange(Collection<WriterState> restoredStates) {
        List<String> otherIds =
                restoredStates.stream()
                        .map(WriterState::sinkId)
                        .filter(id -> !id.equals(context.sinkId()))
                        .distinct()
                        .collect(Collectors.toList());
        if (!otherIds.isEmpty()) {
            LOG.warn(
                    "{}: restored state was written by sink id(s) {}. Prepared transactions of those ids "
                            + "are no longer managed by this job; list and resolve them with "
                            + "sql/03-prepared-transactions.sql.",
                    context,
                    otherIds);
        }
    }

    /** Rolls back this subtask's leftovers per {@link RecoveryPlan}, under the ownership guards. */
    private void recover() throws IOException {
        session.claim(context.subtask(), settings.claimWait().toMillis());
        List<TransactionId> prepared = session.listPrepared();
        RecoveryPlan plan =
                RecoveryPlan.decide(
                        prepared,
                        context.sinkId(),
                        context.subtask(),
                        context.parallelism(),
                        context.restoredCheckpointId());

        if (plan.freshStart() && !plan.toRollBack().isEmpty()) {
            if (settings.leftoverPolicy() == LeftoverPolicy.FAIL) {
                throw new SinkException(
                        context
                                + ": found "
                                + plan.toRollBack().size()
                                + " prepared transaction(s) of this sink id left by an earlier run "
                                + names(plan.toRollBack())
                                + ", and the job starts without restored state. Remedy: restore the job "
                                + "from its latest checkpoint or savepoint so they are committed; or resolve "
                                + "them by hand (sql/03-prepared-transactions.sql); or set leftoverPolicy "
                                + "ROLLBACK to roll them back at start.");
            }
            LOG.warn(
                    "{}: fresh start (no restored state) found {} prepared transaction(s) of this sink id left "
                            + "by an earlier run; rolling them back (leftoverPolicy=ROLLBACK): {}",
                    context,
                    plan.toRollBack().size(),
                    names(plan.toRollBack()));
        }

        rollBack(plan.toRollBack(), id -> LOG.info(
                "{}: rolled back prepared transaction {} (checkpoint {} did not complete before restored "
                        + "checkpoint {})",
                context,
                id,
                id.checkpointId(),
                context.restoredCheckpointId().isPresent()
                        ? context.restoredCheckpointId().getAsLong()
                        : "none"));
        if (!plan.leftForCommitter().isEmpty()) {
            awaitingRestoredCommits = plan;
            LOG.info(
                    "{}: left {} prepared transaction(s) at or before restored checkpoint {} to the restored "
                            + "committer: {}",
                    context,
                    plan.leftForCommitter().size(),
                    context.restoredCheckpointId().getAsLong(),
                    names(plan.leftForCommitter()));
        }
    }

    /**
     * Rolls back prepared transactions this subtask owns, under the ownership guard of every other
     * subtask index among them. Adopted indices come from a larger earlier parallelism. If a live
     * session still guards one, a second job with this sink id is running: claim() refuses rather
     * than destroy its work.
     */
    private void rollBack(List<TransactionId> ids, Consumer<TransactionId> log)
            throws IOException {
        SortedSet<Integer> adopted = RecoveryPlan.adoptedSubtasks(ids, context.subtask());
        for (int index : adopted) {
            session.claim(index, settings.claimWait().toMillis());
        }
        for (TransactionId id : ids) {
            session.rollbackPrepared(id);
            log.accept(id);
        }
        for (int index : adopted) {
            session.release(index);
        }
    }

    /**
     * Runs at the first checkpoint after a restore. Flink triggers a checkpoint only once every task
     * runs, that is after every restored committer committed the committables it holds (a commit it
     * cannot finish fails its task first). An owned transaction named at or before the restored
     * checkpoint that is still prepared now is therefore held by no committer: it was prepared by
     * another run of this sink id (one restored from an older savepoint or checkpoint, or a fresh
     * one) whose checkpoint never completed. Nothing will ever commit it; left alone it would hold
     * its locks and VACUUM back forever.
     */
    private void rollBackOrphans(long checkpointId) throws IOException {
        RecoveryPlan plan = awaitingRestoredCommits;
        List<TransactionId> orphans = plan.orphans(session.listPrepared());
        long restored = context.restoredCheckpointId().getAsLong();
        rollBack(orphans, id -> LOG.warn(
                "{}: rolled back prepared transaction {} of checkpoint {}: it is named at or before restored "
                        + "checkpoint {}, yet no restored committer committed it before checkpoint {} began, so "
                        + "it belongs to another run of sink id '{}' (one restored from another savepoint or "
                        + "checkpoint, or started fresh) that died before its checkpoint completed",
                context,
                id,
                id.checkpointId(),
                restored,
                checkpointId,
                context.sinkId()));
        awaitingRestoredCommits = null;
    }

    @Override
    public void write(IN element, Context ctx) throws IOException {
        try {
            if (recordsInEpoch == 0) {
                // The epoch's name is known now: no checkpoint is snapshotted until its barrier.
                epochId = nextTransactionId();
                session.begin(epochId);
            }
            session.write(element, recordsInEpoch);
        } catch (IOException | RuntimeException e) {
            throw epochFailure(e);
        }
        recordsInEpoch++;
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
        try {
            session.flush();
        } catch (IOException | RuntimeException e) {
            throw epochFailure(e);
        }
        numRecordsSend.inc(recordsInEpoch - recordsCountedAsSent);
        recordsCountedAsSent = recordsInEpoch;
    }

    @Override
    public Collection<PreparedTransaction> prepareCommit() throws IOException {
        if (recordsInEpoch == 0) {
            return Collections.emptyList();
        }
        TransactionId id = nextTransactionId();
        if (!id.equals(epochId)) {
            // A tripwire for the invariant begin() relies on; a session already started the epoch as epochId.
            throw new IllegalStateException(context + ": the epoch began as " + epochId + " but prepares as " + id);
        }
        long rows = recordsInEpoch;
        try {
            session.prepare(id, rows);
            if (mailbox != null) {
                // Only the latest matters: its commit implies the commit of every earlier one.
                if (awaitingCommit != null) {
                    CommitSignals.forget(awaitingCommit);
                }
                CommitSignals.expect(id);
                awaitingCommit = id;
            }
        } catch (IOException | RuntimeException e) {
            throw epochFailure(e);
        }
        recordsInEpoch = 0;
        recordsCountedAsSent = 0;
        epochId = null;
        LOG.debug("{}: prepared {} with {} rows", context, id, rows);
        return Collections.singletonList(new PreparedTransaction(id, rows, System.currentTimeMillis()));
    }

    /** The name of the transaction of the epoch after the last snapshotted checkpoint. */
    private TransactionId nextTransactionId() {
        return new TransactionId(context.sinkId(), context.subtask(), lastCheckpointId + 1, run);
    }

    /**
     * What the session uses to wait for the commit of this writer's previous transaction: see {@link
     * OwnCommits}. Between the barrier and the commit, only writes that may touch that transaction's
     * rows have to wait; the session knows which ones do.
     */
    private final class OwnCommitGate implements OwnCommits {

        @Override
        public boolean pending() {
            if (awaitingCommit == null) {
                return false;
            }
            if (CommitSignals.isCommitted(awaitingCommit)) {
                CommitSignals.forget(awaitingCommit);
                awaitingCommit = null;
                return false;
            }
            return true;
        }

        /**
         * Lets the task run its mailbox (where the committer's notification arrives) until the
         * committer has committed this writer's previous transaction, so that the statement to come
         * never waits for row locks that only that commit releases: the commit could never run while
         * the task thread waits on the database.
         */
        @Override
        public boolean await() throws IOException {
            if (!pending()) {
                return true;
            }
            TransactionId id = awaitingCommit;
            long deadline = System.nanoTime() + OWN_COMMIT_WAIT_MILLIS * 1_000_000L;
            try {
                while (!CommitSignals.isCommitted(id)) {
                    if (!mailbox.tryYield()) {
                        if (System.nanoTime() > deadline) {
                            LOG.warn("{}: {} was not committed within {} ms (its checkpoint may have been declined); "
                                            + "writing on, a write that needs its locks will fail at a short lock timeout",
                                    context, id, OWN_COMMIT_WAIT_MILLIS);
                            return false;
                        }
                        Thread.sleep(1);
                    }
                }
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SinkException(context + ": interrupted while waiting for the commit of " + id, e);
            } finally {
                CommitSignals.forget(id);
                awaitingCommit = null;
            }
        }
    }

    /**
     * Adds who and when to a failure of the open epoch: sink, subtask, target and checkpoint. The
     * session's message says where in the epoch ("record #k") and why.
     */
    private SinkException epochFailure(Exception e) {
        return new SinkException(
                context
                        + ", "
                        + target
                        + ", epoch of checkpoint "
                        + (lastCheckpointId + 1)
                        + " ("
                        + (lastCheckpointId == 0
                                ? "the first epoch, no checkpoint before it"
                                : "the records after checkpoint " + lastCheckpointId + ", the last one this writer snapshotted")
                        + "; "
                        + recordsInEpoch
                        + " records so far): "
                        + e.getMessage(),
                e);
    }

    @Override
    public List<WriterState> snapshotState(long checkpointId) throws IOException {
        // Only here, never in prepareCommit(): that also runs at the end of input, which may come
        // before every task has restored; a snapshot is always part of a triggered checkpoint.
        if (awaitingRestoredCommits != null) {
            rollBackOrphans(checkpointId);
        }
        lastCheckpointId = checkpointId;
        return Collections.singletonList(new WriterState(context.sinkId(), context.subtask(), checkpointId));
    }

    @Override
    public void close() throws Exception {
        closeQuietly(null);
    }

    private void closeQuietly(Throwable primary) {
        if (awaitingCommit != null) {
            CommitSignals.forget(awaitingCommit); // nobody will wait for it any more
            awaitingCommit = null;
        }
        try {
            session.abortOpen();
        } catch (IOException | RuntimeException e) {
            // The connection may be what failed; the server rolls back an open transaction when its
            // session ends, so nothing is left behind either way.
            if (primary != null) {
                primary.addSuppressed(e);
            } else {
                LOG.debug("{}: rolling back the open transaction on close failed", context, e);
            }
        }
        try {
            session.close();
        } catch (IOException | RuntimeException e) {
            if (primary != null) {
                primary.addSuppressed(e);
            } else {
                LOG.debug("{}: closing the session failed", context, e);
            }
        }
    }

    private static String names(List<TransactionId> ids) {
        return ids.stream().map(TransactionId::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public String toString() {
        return "ExactlyOnceWriter{" + context + ", " + target + ", run=" + run + "}";
    }
}
