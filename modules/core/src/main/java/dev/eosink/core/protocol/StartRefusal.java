/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.Wording;

import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The refusals of a start, and what they leave behind: a refusal names what was found and the remedy, and fails
 * the job without restarts ({@link SuppressRestartsException}: a restart would find the same), so that the
 * reason is the job's failure, not one entry among thousands of identical restarts.
 *
 * <p>Invariant: before it refuses, it rolls back whatever this execution prepared after the restored checkpoint,
 * on every subtask index: none of it can ever be committed, and left prepared it would look like a leftover to
 * the next start. It touches nothing else.
 */
final class StartRefusal {

    // The start's decisions are logged under one name, whatever part of it takes them.
    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final String target;
    /** The resource's words: where the messages send an operator to resolve by hand. */
    private final Wording words;

    private final Recovery session;

    StartRefusal(SinkSubtask sink, Recovery session) {
        this.context = sink.context();
        this.settings = sink.settings();
        this.target = sink.target();
        this.words = sink.words();
        this.session = session;
    }

    /**
     * Turns a refusal into the job's failure without restarts, after rolling back every transaction this
     * execution prepared after the restored checkpoint (all of them on a fresh start), on every subtask index.
     * None of them can ever be committed: no checkpoint completes while this writer has not started, and the
     * job fails now; left prepared, they would hold their locks and look like another job's leftovers to the
     * next start. They are not this subtask's to guard: only writers of this same execution prepare them.
     */
    SuppressRestartsException refuse(SinkException refusal) {
        List<String> notRolledBack = new ArrayList<>();
        try {
            long after = context.restoredCheckpointId().orElse(0L);
            for (TransactionId id : session.listPrepared()) {
                if (id.executionTag().equals(context.execution()) && id.checkpointId() > after) {
                    try {
                        session.rollbackPrepared(id);
                        LOG.info(
                                "{}: rolled back prepared transaction {} of this execution before refusing to start",
                                context,
                                id);
                    } catch (IOException | RuntimeException e) {
                        notRolledBack.add(id.toString());
                        refusal.addSuppressed(e);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            notRolledBack.add("(the list of prepared transactions could not be read)");
            refusal.addSuppressed(e);
        }
        String never = " Any transaction of this job (execution tag " + context.execution() + ": its run token starts "
                + "with it) that is still prepared, or that another subtask prepares while the job fails, was never "
                + "promised: never commit it, roll it back.";
        if (!notRolledBack.isEmpty()) {
            never = " These transactions of this job could not be rolled back: " + notRolledBack + "." + never;
        }
        SinkException whole = new SinkException(refusal.getMessage() + never);
        for (Throwable t : refusal.getSuppressed()) {
            whole.addSuppressed(t);
        }
        return new SuppressRestartsException(whole);
    }

    /**
     * The refusal of transactions the restored checkpoint promised (the restored writer state proves them its
     * committers') that no restored committer committed within claimWait, while no committer of the sink in this
     * JVM was inside a commit call. Every restored committer commits what it holds while its task initializes:
     * chained to this writer, before this writer's task can run; unchained, meanwhile, and in this JVM under
     * Flink's default slot sharing, where this writer waits for it as long as it commits. So no committer holds
     * them: the committers' state was not restored while the writers' was (the committer's operator id changed,
     * and --allowNonRestoredState dropped its state). Left alone they would stay prepared for ever, and their
     * records, which the restored sources do not replay, would never become visible. The one case this cannot
     * tell apart: chaining disabled, and the committer in another JVM, or its task not started within claimWait;
     * the message says so, and restoring the same checkpoint again loses nothing.
     */
    SinkException uncommitted(List<TransactionId> uncommitted) {
        return new SinkException(context + ", " + target + ": restored checkpoint "
                + StartupRecovery.restoredIdText(context) + " promised " + StartupRecovery.names(uncommitted)
                + " (the restored writer state names the run that prepared them), yet no restored "
                + "committer committed them within " + settings.claimWait() + " (and no committer of this sink in this "
                + "JVM is still committing), although every restored committer commits what it holds as its task "
                + "initializes: the committers' state was not restored "
                + "(the sink's committer has another operator id than in the job that took the checkpoint: give the "
                + "sink a uid, and restore without --allowNonRestoredState dropping the committer's state). The restored "
                + "sources resume after that checkpoint, so these transactions are the only copy of their records. "
                + "Refused, and the job fails without restarts; nothing of this job became visible. Remedy: restore "
                + "with the committer's state, or commit them by hand (eosink-admin resolve against the same "
                + "checkpoint commits exactly what it promised) and start again. Only if chaining is disabled and the "
                + "committer runs in another JVM than this writer, or its task started later than claimWait, may "
                + "the state be there after all: restore the same checkpoint again, with a longer claimWait.");
    }

    /**
     * The refusal of leftovers and of carried writes this start cannot see. Nothing of this job became visible:
     * this writer has written nothing yet, and {@link #refuse} rolls back what this execution prepared elsewhere.
     */
    SinkException leftovers(List<TransactionId> leftovers, List<CarriedNotice> unseen, RecoveryPlan plan) {
        StringBuilder m = new StringBuilder(
                context + ", " + target + ": this job started " + StartupRecovery.startedHow(plan, context) + ", ");
        if (!leftovers.isEmpty()) {
            String tags = leftovers.stream()
                    .map(TransactionId::executionTag)
                    .distinct()
                    .sorted()
                    .collect(Collectors.joining(", "));
            m.append("and found ")
                    .append(leftovers.size())
                    .append(" prepared transaction(s) of sink id '")
                    .append(context.sinkId())
                    .append("' left by other job(s) or other submissions of this job ")
                    .append("(execution tag ")
                    .append(tags)
                    .append("): ")
                    .append(StartupRecovery.names(leftovers))
                    .append(". The sink cannot tell whether a completed checkpoint or savepoint promised them. If the ")
                    .append("sources resumed after such a snapshot (restored with a changed sink uid and ")
                    .append("--allowNonRestoredState, say), they are the only copy of their records, and rolling them ")
                    .append("back would lose them.");
            if (!plan.freshStart()) {
                // A subtask index the restored snapshot did not have (a rescale up) gets no writer state even
                // when the sink's state was restored, and cannot tell which of the two starts this is.
                m.append(" If this job did restore this sink's state, at a higher parallelism than the snapshot's ")
                        .append("(a rescale up), subtask ")
                        .append(context.subtask())
                        .append(" is new to it: the ")
                        .append("snapshot promised nothing on this index, and these transactions belong to another ")
                        .append("run that this restore abandons (one restored from the same snapshot without the ")
                        .append("sink's state, say): roll them back (eosink-admin resolve against the snapshot you ")
                        .append("restore does exactly that) and restore it again.");
            }
        }
        if (!unseen.isEmpty()) {
            m.append(leftovers.isEmpty() ? "and " : " It also ")
                    .append("found that ")
                    .append(unseen.stream().map(CarriedNotice::toString).collect(Collectors.joining("; ")))
                    .append(
                            ": a writer of upserts held them past that barrier (they had to follow a commit that came only ")
                    .append(
                            "with a later checkpoint), and they are in that checkpoint's or savepoint's writer state only, ")
                    .append("never written. Going on without them would leave those keys at an older value.");
        }
        m.append(
                        " Refused (leftoverPolicy FAIL, the default), and the job fails without restarts (a restart would find ")
                .append(
                        "the same); nothing of this job became visible. Remedy: restore the job from the checkpoint or ")
                .append("savepoint that holds this sink's state (same sink uid)")
                .append(leftovers.isEmpty() ? "" : ", whose committers commit those transactions")
                .append(
                        unseen.isEmpty()
                                ? ""
                                : (leftovers.isEmpty() ? ", " : " and ") + "whose writers write the carried writes");
        if (!leftovers.isEmpty()) {
            m.append("; or decide by hand (")
                    .append(words.manualResolution())
                    .append("): commit the transactions if ")
                    .append("their snapshot completed and the sources resume after it, roll them back otherwise");
        }
        if (!unseen.isEmpty()) {
            m.append(
                            "; or, for a sink of one table, write the carried writes by hand from that snapshot (eosink-admin ")
                    .append("carried shows them and, with --apply, writes them; it refuses a sink of routed tables)");
        }
        m.append("; or, if the sources replay everything this job needs (a fresh start from the beginning), set ")
                .append("leftoverPolicy(ROLLBACK).");
        return new SinkException(m.toString());
    }
}
