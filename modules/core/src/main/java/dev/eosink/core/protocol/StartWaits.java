/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.RecoveryPlan.Verdict;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The wait of a restored writer at start for what the other tasks of the run do as they start: the restored
 * committers of other subtasks commit what the restored checkpoint promised, and restored writers write what
 * they carried past its barrier.
 *
 * <p>Invariant: the wait is bounded, by {@link SinkSettings#claimWait()}, and past it by {@link
 * #BUSY_COMMITTER_WAIT} more only while a committer of this sink and execution in this JVM is inside a commit
 * call; it can hold up no checkpoint, as none begins while this writer's task initializes. What is still
 * prepared then is for {@link StartupRecovery} to decide, never assumed committed.
 */
final class StartWaits {

    // The start's decisions are logged under one name, whatever part of it takes them.
    private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

    /** How often a writer waiting at start looks at the database again. */
    private static final long POLL_MILLIS = 50;

    /** How often a writer waiting at start says what it waits for. */
    private static final long LOG_EVERY_NANOS = 5_000_000_000L;

    /**
     * How much longer than the claim wait a restored writer waits for what restored committers may commit,
     * while a committer of the sink in this JVM is inside a commit call. Bounded even so. A commit call ends
     * by its own retries and network timeout: usually within seconds (a COMMIT PREPARED still running
     * elsewhere fails fast as busy), at worst, with the defaults, in about 15 minutes per transaction (six
     * attempts of a pool wait and a network timeout each); past this bound the writer refuses, and a
     * restore of the same checkpoint loses nothing.
     */
    static final Duration BUSY_COMMITTER_WAIT = Duration.ofMinutes(10);

    private final SubtaskContext context;
    private final SinkSettings settings;
    private final Recovery session;
    private final CarriedCapability carried;

    StartWaits(SubtaskContext context, SinkSettings settings, Recovery session, CarriedCapability carried) {
        this.context = context;
        this.settings = settings;
        this.session = session;
        this.carried = carried;
    }

    /**
     * Waits, up to {@link SinkSettings#claimWait()}, until the transactions that a restored committer of another
     * subtask may hold are no longer prepared, and the carried writes in {@code notices} are written by whoever
     * restored them: those committers commit while their tasks initialize, and those writers while theirs start,
     * at the same time as this one. Past the claim wait, waits on, up to {@link #BUSY_COMMITTER_WAIT} more, while a
     * committer of this sink and execution in this JVM is inside a commit call ({@link LocalCommitters}): with
     * chaining disabled, a restored committer slower than the claim wait is still committing, not missing.
     * Returns what is still prepared of those transactions then.
     */
    List<TransactionId> awaitRestoredCommitters(RecoveryPlan plan, List<CarriedNotice> notices) throws IOException {
        Set<TransactionId> awaited = new HashSet<>(plan.with(Verdict.UNLESS_COMMITTED));
        awaited.addAll(plan.with(Verdict.LEFTOVER_UNLESS_COMMITTED));
        awaited.addAll(plan.with(Verdict.RESTORED_COMMITTER));
        if (context.restoredCheckpointId().isEmpty() || awaited.isEmpty() && notices.isEmpty()) {
            return List.of();
        }
        Set<Integer> noticed = notices.stream().map(CarriedNotice::subtask).collect(Collectors.toSet());
        long start = System.nanoTime();
        long deadline = start + settings.claimWait().toNanos();
        long nextLog = start + LOG_EVERY_NANOS;
        boolean committerBusyLogged = false;
        while (true) {
            // Before the listing: a commit call that ends while the listing travels leaves a stale list, and
            // must still count as a committer at work.
            boolean committing = LocalCommitters.committing(context);
            List<TransactionId> still = session.listPrepared().stream()
                    .filter(awaited::contains)
                    .sorted(Comparator.comparingLong(TransactionId::checkpointId))
                    .collect(Collectors.toList());
            if (!noticed.isEmpty()) {
                noticed.retainAll(carried.openCarried().stream()
                        .map(CarriedNotice::subtask)
                        .collect(Collectors.toSet()));
            }
            if (still.isEmpty() && noticed.isEmpty()) {
                return still;
            }
            if (System.nanoTime() - deadline > 0) {
                if (!committing || System.nanoTime() - deadline > BUSY_COMMITTER_WAIT.toNanos()) {
                    return still;
                }
                if (!committerBusyLogged) {
                    committerBusyLogged = true;
                    LOG.info(
                            "{}: {} passed with {} still prepared, and a committer of this sink in this JVM is still "
                                    + "committing (chaining disabled: the restored committer is a task of its own): waiting "
                                    + "for it, up to {} more",
                            context,
                            settings.claimWait(),
                            StartupRecovery.names(still),
                            BUSY_COMMITTER_WAIT);
                }
            }
            if (System.nanoTime() - nextLog > 0) {
                nextLog += LOG_EVERY_NANOS;
                LOG.info(
                        "{}: waiting up to {} for the restored committers of other subtasks to commit {}{}",
                        context,
                        committerBusyLogged
                                ? BUSY_COMMITTER_WAIT + " past " + settings.claimWait()
                                : settings.claimWait(),
                        StartupRecovery.names(still),
                        noticed.isEmpty()
                                ? ""
                                : ", and for the writes carried by subtask(s) " + noticed + " to be written");
            }
            StartWaits.pause(context, "waiting for the restored committers");
        }
    }

    /** Sleeps between two looks at the database while this writer waits at start. */
    static void pause(SubtaskContext context, String what) throws SinkException {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while " + what, e);
        }
    }
}
