/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.TransactionLostException;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The committer half of the two-phase commit. Flink calls it only for checkpoints that completed
 * (and, on restore, for the committables of the restored checkpoint), in checkpoint order.
 *
 * <p>Every commit ends in exactly one of three ways, decided here and nowhere else:
 *
 * <ol>
 *   <li><b>Committed</b>, by this call, or earlier: if the name is no longer prepared, the marker
 *       row written inside the transaction proves it committed ({@code signalAlreadyCommitted}).
 *       This is what makes re-commits after a restore idempotent.
 *   <li><b>Retried</b>, when the outcome is unknown (connection lost during COMMIT PREPARED,
 *       another session finishing the same transaction): look again, up to {@code commitRetries}
 *       times with backoff; then fail the task, and the restored committer tries again.
 *   <li><b>Lost</b>: neither prepared nor marked. Someone rolled it back (its rows are gone), or it
 *       committed and its marker was deleted since (its rows are there): the sink cannot tell, never
 *       assumes success, and fails, naming the transaction, checkpoint and subtask, how to tell which,
 *       and the remedy of each. It
 *       first commits every other transaction of the same call: they would otherwise stay prepared,
 *       holding their locks, on every restore.
 * </ol>
 *
 * <p>Subtask 0 prunes old marker rows, but never before a checkpoint of this run completed: until
 * then a failure restores the same checkpoint again, and the restored transactions it just
 * committed (markers dated by their epoch's start, which may be older than the retention after a
 * long downtime) need their markers to prove it.
 */
@Internal
public final class ExactlyOnceCommitter implements Committer<PreparedTransaction> {

    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceCommitter.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    /** The resource's words, for a commit's missing proof ({@link Wording#missingMarker}). */
    private final Wording words;

    private final CommitSession session;
    private final CommitterMetrics metrics;
    private long lastPruneMillis;
    /** Whether this committer committed a transaction of this run (named after the restored checkpoint). */
    private boolean committedOwnTransaction;

    /**
     * @param sink the sink's subtask this committer commits for
     * @param session the session, which the committer closes
     * @param metrics the committer operator's metric group, where the committer registers its metrics
     */
    public ExactlyOnceCommitter(SinkSubtask sink, CommitSession session, MetricGroup metrics) {
        this(sink, session, metrics, System::nanoTime);
    }

    /** With the clock of the metrics' times (tests). */
    ExactlyOnceCommitter(SinkSubtask sink, CommitSession session, MetricGroup metrics, LongSupplier nanoClock) {
        this.context = sink.context();
        this.settings = sink.settings();
        this.target = sink.target();
        this.words = sink.words();
        this.session = session;
        this.metrics = new CommitterMetrics(metrics, nanoClock);
    }

    @Override
    public void commit(Collection<CommitRequest<PreparedTransaction>> requests)
            throws IOException, InterruptedException {
        LocalCommitters.entered(context); // a restored writer starting meanwhile waits for this call
        try {
            commitAll(requests);
        } finally {
            LocalCommitters.left(context);
        }
    }

    private void commitAll(Collection<CommitRequest<PreparedTransaction>> requests)
            throws IOException, InterruptedException {
        // Flink calls this right after the checkpoint-complete notification: the start of checkpointToCommittedMillis.
        long callNanos = metrics.now();
        List<TransactionLostException> lost = new ArrayList<>();
        CommitRequest<PreparedTransaction> firstLost = null;
        for (CommitRequest<PreparedTransaction> request : requests) {
            PreparedTransaction tx = request.getCommittable();
            try {
                boolean committedNow = commitOne(tx);
                CommitSignals.committed(tx.id());
                if (tx.id().checkpointId() > context.restoredCheckpointId().orElse(0L)) {
                    committedOwnTransaction = true;
                }
                if (committedNow) {
                    metrics.committedNow(tx.rows(), callNanos);
                    LOG.debug(
                            "{}: committed {} ({} rows, {} ms after prepare)",
                            context,
                            tx.id(),
                            tx.rows(),
                            System.currentTimeMillis() - tx.preparedAtMillis());
                } else {
                    metrics.alreadyCommitted.inc();
                    request.signalAlreadyCommitted();
                    LOG.info("{}: {} was already committed (marker found)", context, tx.id());
                }
            } catch (TransactionLostException e) {
                metrics.lost.inc();
                LOG.error(e.getMessage());
                lost.add(e);
                if (firstLost == null) {
                    firstLost = request;
                }
            }
        }
        if (firstLost != null) {
            // Throws: the task fails and the message reaches the job's exception history.
            firstLost.signalFailedWithUnknownReason(lost.size() == 1 ? lost.get(0) : allLost(lost));
        }
        pruneMarkersIfDue();
    }

    private TransactionLostException allLost(List<TransactionLostException> lost) {
        TransactionLostException all = new TransactionLostException(context + ": " + lost.size()
                + " prepared transactions of one commit are LOST (every other one was committed): "
                + lost.stream().map(Throwable::getMessage).collect(Collectors.joining(" | ")));
        lost.forEach(all::addSuppressed);
        return all;
    }

    /**
     * Commits one transaction.
     *
     * @return true if this call committed it, false if it had been committed before (proved by
     *     its marker)
     * @throws TransactionLostException if it is neither prepared nor committed
     * @throws SinkException if the outcome stays unknown after the configured retries, or on a
     *     fatal error
     */
    boolean commitOne(PreparedTransaction tx) throws IOException, InterruptedException {
        TransactionId id = tx.id();
        RetriableCommitException last = null;
        for (int attempt = 0; attempt <= settings.commitRetries(); attempt++) {
            if (attempt > 0) {
                metrics.retries.inc();
                long backoff = backoffMillis(attempt);
                LOG.warn(
                        "{}: commit of {} (checkpoint {}) failed with an unknown outcome, attempt {} of {}; "
                                + "looking again in {} ms: {}",
                        context,
                        id,
                        id.checkpointId(),
                        attempt,
                        settings.commitRetries() + 1,
                        backoff,
                        last.getMessage());
                Thread.sleep(backoff); // an interrupt propagates: the task is being cancelled
            }
            try {
                switch (session.commit(id)) {
                    case COMMITTED:
                        return true;
                    case NOT_FOUND:
                        if (session.isMarked(id)) {
                            return false;
                        }
                        throw lost(tx);
                    default:
                        throw new IllegalStateException("unknown commit outcome");
                }
            } catch (RetriableCommitException e) {
                last = e;
            }
        }
        throw new SinkException(
                context
                        + ": could not commit prepared transaction "
                        + id
                        + " of checkpoint "
                        + id.checkpointId()
                        + " into "
                        + target
                        + " after "
                        + (settings.commitRetries() + 1)
                        + " attempts; the outcome is unknown. The task fails and the restored committer "
                        + "commits it again (idempotently). If this repeats, check that "
                        + target
                        + " is available and that the sink's user may commit its prepared transactions there.",
                last);
    }

    private long backoffMillis(int attempt) {
        long base = settings.commitRetryBackoff().toMillis();
        // Exponential, capped at 32x the base: long enough to ride out a server restart.
        return base << Math.min(attempt - 1, 5);
    }

    /**
     * Gone and unmarked is all that is known: rolled back (its rows are lost), or committed with its proof
     * deleted since (its rows are there, and replaying the input would write them twice). The message says
     * both, how to tell which, and the remedy of each.
     */
    private TransactionLostException lost(PreparedTransaction tx) {
        TransactionId id = tx.id();
        return new TransactionLostException(context + ": prepared transaction " + id + " of checkpoint "
                + id.checkpointId() + " (written by subtask " + id.subtask() + ", " + tx.rows() + " rows) into "
                + target + " is gone and " + words.missingMarker() + ", although a completed checkpoint (numbered "
                + id.checkpointId() + " or later) promised it. Either it was rolled back by someone other than this "
                + "job (an operator by hand, a second job with sink id '" + id.sinkId() + "'), and its rows are LOST; "
                + "or it committed and only its marker row was deleted since (by hand, or pruned after "
                + "markerRetention " + settings.markerRetention() + " before an old snapshot was restored), and its "
                + "rows are in " + target + ". To tell which: " + words.findRows() + ". If its rows are missing: "
                + "replay the lost input (restore from a checkpoint before " + id.checkpointId() + "). If they are "
                + "there, nothing is lost and replaying would write them twice: " + words.restoreProof()
                + ", and restore the job again. Either way, make sure nothing else resolves this sink's prepared "
                + "transactions.");
    }

    private void pruneMarkersIfDue() {
        // One subtask prunes for the whole sink; any would do, one is enough.
        if (context.subtask() != 0 || !committedOwnTransaction) {
            return;
        }
        long now = System.currentTimeMillis();
        if (now - lastPruneMillis < settings.markerPruneInterval().toMillis()) {
            return;
        }
        lastPruneMillis = now;
        try {
            long pruned = session.pruneMarkers(settings.markerRetention());
            if (pruned > 0) {
                LOG.info("{}: pruned {} markers older than {}", context, pruned, settings.markerRetention());
            }
        } catch (IOException e) {
            // Pruning is housekeeping; failing the job for it would trade availability for nothing.
            LOG.warn("{}: pruning markers failed, will try again later", context, e);
        }
    }

    @Override
    public void close() throws Exception {
        session.close();
    }

    @Override
    public String toString() {
        return "ExactlyOnceCommitter{" + context + ", " + target + "}";
    }
}
