/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The writer half of the two-phase commit. Between two barriers every record goes into one open
 * database transaction; at the barrier ({@link #prepareCommit()}) that transaction is prepared under
 * a fresh {@link TransactionId} and handed to Flink as a {@link PreparedTransaction}. The writer
 * never commits: only the committer does, once the checkpoint is complete.
 *
 * <p>It runs epochs and leaves the rest to one class each: {@link StartupRecovery} carries out the
 * recovery (at start, and at the first checkpoint of the run), {@link PendingCommits} tracks what this
 * writer prepared until it is committed, {@link OwnCommitGate} lets the session wait for such a
 * commit, {@link WriterMetrics} holds its metrics and {@link PreparedAgeWarning} warns about a
 * transaction that stays prepared too long.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>An epoch with no record prepares nothing and emits no committable, unless the session held
 *       writes past the last barrier that may run now: then the flush at the barrier begins an epoch
 *       for them alone.
 *   <li>A transaction is named with {@code lastSnapshottedCheckpoint + 1}, never more than the
 *       checkpoint whose barrier prepares it (Flink calls {@code prepareCommit} before {@code
 *       snapshotState} of the same checkpoint).
 *   <li>Before the first record, {@link StartupRecovery} has carried out the {@link RecoveryPlan}
 *       under the ownership guard of every subtask index involved; what the plan leaves to the
 *       restored committers is resolved at the first checkpoint of the run.
 *   <li>At most {@link SinkSettings#maxPreparedPerSubtask()} of this writer's transactions are
 *       prepared and not yet committed at any time: each one holds a slot of the database's
 *       prepared transactions and its row locks, and checkpoints that keep failing would otherwise
 *       pile them up without bound. An epoch that would exceed it fails instead, before it begins.
 *   <li>Writes the session holds past a barrier ({@link dev.eosink.core.spi.HeldWrites#carried()}: they must follow a
 *       commit that only a later checkpoint brings) are in that checkpoint's state, and a writer
 *       restored from it writes them before its first record; at the end of input, with no epoch
 *       left to write them, the task fails over instead.
 *   <li>On close (cancel, failure) only the open, unprepared transaction is rolled back; prepared
 *       ones belong to checkpoints and are left to the committer or the next start.
 * </ul>
 */
@Internal
public final class ExactlyOnceWriter<IN>
        implements CommittingSinkWriter<IN, PreparedTransaction>, StatefulSinkWriter<IN, WriterState> {

    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceWriter.class);

    /** Flink's default checkpoint timeout, for writers built without the job's. */
    public static final Duration DEFAULT_CHECKPOINT_TIMEOUT = Duration.ofMinutes(10);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    private final Wording words;
    /** The session, which the writer closes; its roles below, asked once. */
    private final WriterSession<IN> session;

    private final EpochWriter<IN> epoch;
    private final Recovery prepared;
    private final CarriedCapability carried;
    private final String run;
    private final StartupRecovery recovery;

    /** The last checkpoint this writer snapshotted (or restored from); 0 before the first. */
    private long lastCheckpointId;

    private long recordsInEpoch;

    /** The name of the open epoch's transaction, given to the session when the epoch began; null between epochs. */
    private TransactionId epochId;

    /** This writer's prepared transactions not yet known to be committed. */
    private final PendingCommits pending;

    /** What the session waits on for its own commits; null outside a Flink task (it never waits there). */
    private final OwnCommitGate gate;

    /** Times {@link PendingCommits} entries, for the bound of a wait for their commit. */
    private final LongSupplier nanoClock;

    /** Of {@link #recordsInEpoch}, those already counted in {@code numRecordsSend}. */
    private long recordsCountedAsSent;

    /**
     * The writer's metrics. Among them Flink's standard sink metric {@code numRecordsSend} (FLIP-33),
     * which only the writer can count: records sent to the database, into the open transaction,
     * whether that transaction later commits or not. Counted when the writer flushes (at every barrier
     * and at end of input), because a batch may hold records until then.
     */
    private final WriterMetrics metrics;

    /** When the last flush began, on {@link #nanoClock}; 0 when prepareCommit has used it. */
    private long flushStartNanos;

    /** Warns about transactions of {@link #pending} that stay prepared too long. */
    private final PreparedAgeWarning ageWarning;

    /**
     * A writer outside a Flink task (tests, tools): no mailbox, Flink's default checkpoint timeout, no
     * registered metrics, the default threshold of the prepared-age warning unless the settings set one
     * ({@link WriterTask#outsideFlink()}).
     */
    public ExactlyOnceWriter(SinkSubtask sink, WriterSession<IN> session, Collection<WriterState> restoredStates)
            throws IOException {
        this(sink, session, restoredStates, WriterTask.outsideFlink());
    }

    /**
     * @param sink the sink's subtask this writer writes for
     * @param session the session, which the writer closes
     * @param restoredStates the writer states of the checkpoint the job restored from, for this subtask
     * @param task what the writer's Flink task gives it: metrics, mailbox, the job's checkpoint timeout and
     *     interval
     */
    public ExactlyOnceWriter(
            SinkSubtask sink, WriterSession<IN> session, Collection<WriterState> restoredStates, WriterTask task)
            throws IOException {
        this.context = sink.context();
        this.settings = sink.settings();
        this.target = sink.target();
        this.words = sink.words();
        this.session = session;
        this.epoch = session.epoch();
        this.prepared = session.recovery();
        this.carried = CarriedCapability.of(session);
        this.metrics = task.metrics();
        this.nanoClock = task.nanoClock();
        this.run = TransactionId.newRunToken(context.execution());
        this.pending = new PendingCommits(context.execution(), context.sinkId(), context.subtask());
        this.ageWarning = new PreparedAgeWarning(
                context, target, words, PreparedAgeWarning.threshold(settings, task.checkpointInterval()));
        metrics.bind(pending, epoch, nanoClock);
        this.recovery = new StartupRecovery(sink, prepared, carried, metrics);
        this.lastCheckpointId = context.restoredCheckpointId().orElse(0L);
        this.gate = task.mailbox() == null
                ? null
                : new OwnCommitGate(
                        context,
                        pending,
                        new OwnCommitGate.Waiting(
                                task.mailbox(), task.checkpointTimeout(), settings.claimWait(), nanoClock),
                        prepared::listPrepared,
                        carried::openCarried);
        epoch.ownCommits(gate == null ? OwnCommits.NONE : gate);
        try {
            recovery.atStart(restoredStates);
        } catch (IOException | RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    @Override
    public void write(IN element, Context ctx) throws IOException {
        try {
            if (epochId == null) {
                beginEpoch();
            }
            epoch.write(element, recordsInEpoch);
        } catch (IOException | RuntimeException e) {
            throw epochFailure(e);
        }
        recordsInEpoch++;
    }

    private void beginEpoch() throws IOException {
        checkPreparedBound();
        warnAboutOldPrepared();
        // The epoch's name is known now: no checkpoint is snapshotted until its barrier.
        if (gate != null) {
            gate.betweenEpochs(); // the epoch's statements wait for no commit the database already shows
        }
        epochId = nextTransactionId();
        epoch.begin(epochId);
    }

    /**
     * Refuses to begin an epoch whose transaction would be the writer's {@code max + 1}-th prepared
     * one. Asks the database before it refuses: a committer in another JVM commits without telling.
     */
    private void checkPreparedBound() throws IOException {
        pending.refresh();
        int max = settings.maxPreparedPerSubtask();
        if (pending.size() < max) {
            return;
        }
        pending.retainOnly(prepared.listPrepared());
        if (pending.size() < max) {
            return;
        }
        throw new SinkException(pending.size() + " transactions this subtask prepared are still waiting for their "
                + "checkpoints to complete (checkpoints " + pending.checkpoints() + ": " + pending.ids() + "); another "
                + "epoch would exceed maxPreparedPerSubtask (" + max + "). Checkpoints keep failing after this sink "
                + "prepared: another subtask failing and restarting, checkpoints timing out or declined (see the job's "
                + "checkpoint history and exceptions). Each prepared transaction holds " + words.preparedHolds()
                + ", so this subtask fails over rather than let them pile up; the restarted job "
                + "rolls these back (their checkpoints did not complete) and replays their records. Remedy: find why "
                + "checkpoints fail; raise maxPreparedPerSubtask only with the database sized for it "
                + "(parallelism x maxPreparedPerSubtask per sink).");
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
        // Flink flushes right before prepareCommit, at every barrier and at the end of input: the
        // barrier's work starts here (a COPY's end, a batch sent).
        flushStartNanos = nanoClock.getAsLong();
        if (endOfInput && gate != null) {
            gate.inputEnded();
        }
        try {
            if (epochId == null && carried.holdsWrites() && (gate == null || !gate.pendingBetweenEpochs())) {
                // No record came since the last barrier, but the session holds writes that may run now:
                // an epoch for them alone, or an idle stream would never write them.
                beginEpoch();
            }
            epoch.flush();
            if (endOfInput && carried.holdsWrites()) {
                // No later epoch will come to write them, and the commit they must follow comes only
                // with a checkpoint after this one: fail over, the restored job replays these records.
                throw new SinkException("the input ended while the sink holds writes that must follow the commit of "
                        + "this writer's previous transaction " + pending.ids() + " (checkpoints "
                        + pending.checkpoints()
                        + "), which comes only with a later checkpoint: its own checkpoint was aborted, or was a plain "
                        + "savepoint. No epoch follows to write them, so the task fails over; the restored job commits "
                        + "or rolls back that transaction and replays these records");
            }
        } catch (IOException | RuntimeException e) {
            throw epochFailure(e);
        }
        metrics.numRecordsSend.inc(recordsInEpoch - recordsCountedAsSent);
        recordsCountedAsSent = recordsInEpoch;
    }

    @Override
    public Collection<PreparedTransaction> prepareCommit() throws IOException {
        long barrierNanos = flushStartNanos != 0 ? flushStartNanos : nanoClock.getAsLong();
        flushStartNanos = 0;
        if (epochId == null) {
            pending.refresh();
            warnAboutOldPrepared();
            return Collections.emptyList();
        }
        TransactionId id = nextTransactionId();
        if (!id.equals(epochId)) {
            // A tripwire for the invariant begin() relies on; a session already started the epoch as epochId.
            throw new IllegalStateException(context + ": the epoch began as " + epochId + " but prepares as " + id);
        }
        long rows = recordsInEpoch;
        try {
            epoch.prepare(id, rows);
        } catch (IOException | RuntimeException e) {
            throw epochFailure(e);
        }
        long preparedNanos = nanoClock.getAsLong();
        metrics.prepared(barrierNanos, preparedNanos);
        pending.prepared(id, preparedNanos);
        recordsInEpoch = 0;
        recordsCountedAsSent = 0;
        epochId = null;
        LOG.debug("{}: prepared {} with {} rows", context, id, rows);
        pending.refresh();
        warnAboutOldPrepared();
        return Collections.singletonList(new PreparedTransaction(id, rows, System.currentTimeMillis()));
    }

    /**
     * Warns about this writer's transactions that stay prepared longer than the threshold, once each
     * ({@link PreparedAgeWarning}). Runs between epochs (the session may list). Before it warns, it asks
     * the database which are still prepared: a committer in another JVM commits without telling.
     */
    private void warnAboutOldPrepared() {
        long now = nanoClock.getAsLong();
        if (!ageWarning.anyDue(pending, now)) {
            return;
        }
        try {
            pending.retainOnly(prepared.listPrepared());
        } catch (IOException | RuntimeException e) {
            // Only a warning depends on it: warn about what the writer knows; the next epoch fails if the
            // connection is what failed.
            LOG.debug("{}: listing the prepared transactions for the age warning failed", context, e);
        }
        ageWarning.warnDue(pending, now);
    }

    /** The name of the transaction of the epoch after the last snapshotted checkpoint. */
    private TransactionId nextTransactionId() {
        return new TransactionId(context.sinkId(), context.subtask(), lastCheckpointId + 1, run);
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
                                : "the records after checkpoint " + lastCheckpointId
                                        + ", the last one this writer snapshotted")
                        + "; "
                        + recordsInEpoch
                        + " records so far): "
                        + e.getMessage()
                        + recovery.unresolved().map(hint -> " " + hint).orElse(""),
                e);
    }

    @Override
    public List<WriterState> snapshotState(long checkpointId) throws IOException {
        // Only here, never in prepareCommit(): that also runs at the end of input, which may come
        // before every task has restored; a snapshot is always part of a triggered checkpoint.
        recovery.atCheckpoint(checkpointId);
        pending.snapshotted(checkpointId);
        lastCheckpointId = checkpointId;
        // Taken before the gate opens: the writes the session holds past this barrier.
        byte[] held = carried.carried().orElse(new byte[0]);
        if (gate != null) {
            gate.snapshotted();
        }
        return Collections.singletonList(new WriterState(
                context.sinkId(),
                context.subtask(),
                checkpointId,
                new WriterState.Lineage(run, context.parallelism(), System.currentTimeMillis()),
                held));
    }

    @Override
    public void close() throws Exception {
        closeQuietly(null);
    }

    private void closeQuietly(Throwable primary) {
        pending.clear(); // nobody will wait for them any more
        try {
            epoch.abortOpen();
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

    @Override
    public String toString() {
        return "ExactlyOnceWriter{" + context + ", " + target + ", run=" + run + "}";
    }
}
