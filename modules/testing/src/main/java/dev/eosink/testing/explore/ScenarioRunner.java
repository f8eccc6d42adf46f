/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.RetainedCheckpoints;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.hardcases.ForgetfulHaServicesFactory;
import dev.eosink.testing.hardcases.HardCaseBackend;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.ResourceBackend;
import dev.eosink.testing.hardcases.SinkSpec;
import dev.eosink.testing.hardcases.TestJobs;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.scheduler.stopwithsavepoint.StopWithSavepointStoppingException;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a {@link Scenario} against a real database and a MiniCluster, step by step, and records what
 * happened ({@link History}). Each job reads ids 0..{@link Scenario#IDS}-1 from a replayable source
 * (the position is its state), passes them through the {@link Gate} and writes them with the backend's
 * sink of the scenario's mode ({@link Target}), traced ({@link ProtocolTrace}) and with faults
 * injectable. Checkpoints are taken only when a step asks, so the steps decide where every barrier
 * falls; everything else (when records arrive, how a failover interleaves with a commit) is left to the
 * machine, as it is in production.
 *
 * <p>After the steps the runner closes the scenario: a running job is driven to its end; if the last job
 * did not finish, a last one restores the newest snapshot of its line of history with the sink's state
 * (or starts fresh under {@code leftoverPolicy(ROLLBACK)}, the documented remedy for sources that start
 * over) and runs to the end. The scenario's final line of history then holds every id.
 *
 * <p>A step that cannot apply (a checkpoint of a job that has ended, a savepoint refused while the job
 * fails over) is noted and skipped: the shrinker removes steps, and the scenario must stay runnable.
 */
public final class ScenarioRunner {

    private static final Logger LOG = LoggerFactory.getLogger(ScenarioRunner.class);

    /** Ids per second the source emits: a full run takes about 1.5 s. */
    static final double RATE = 1_000;

    /**
     * How long the sink's sessions may take to leave the database once a job ended. A session whose statement
     * waited for a row lock when its task was cancelled stays until the server gives that wait up (the
     * writers' lock timeout, 60 s): the sink aborted its connection, and the server notices only then. A
     * changelog scenario meets that whenever a start is refused for leftovers while a subtask that owns none
     * already writes a key they hold.
     */
    private static final Duration SESSIONS_GONE = TestJobs.TIMEOUT.multipliedBy(2);

    private final ResourceBackend backend;
    private final Optional<HardCaseBackend.OwnServer> server;
    private final ClusterClient<?> client;
    private final Path dir;
    private final String sinkId;
    private final Target target;
    private final Optional<Resolver> resolver;
    private final JobID fixedJobId;
    private int fixedSubmissions;

    private History history;
    private History.Run current;
    private JobClient job;
    /** A step made commits slow: they stay slow in the closing run. */
    private boolean slowCommits;

    /**
     * A runner for one scenario: {@code target} must exist, be empty and be of the scenario's mode, {@code
     * sinkId} unused; {@code dir} an empty directory for snapshots. The cluster must forget cleaned-up jobs
     * ({@link ForgetfulHaServicesFactory}) for the fixed job id. {@code server}, if there is one, is the
     * server the target's backend is on, which a crash step kills and restarts.
     */
    ScenarioRunner(
            Target target,
            Optional<HardCaseBackend.OwnServer> server,
            Optional<Resolver> resolver,
            ClusterClient<?> client,
            Path dir,
            String sinkId) {
        this.backend = target.backend;
        this.resolver = resolver;
        this.server = server;
        this.client = client;
        this.dir = dir;
        this.sinkId = sinkId;
        this.target = target;
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(sinkId.hashCode()).putLong(System.nanoTime());
        this.fixedJobId = new JobID(bytes.array());
    }

    /**
     * Runs {@code scenario} against a fresh table and sink id, then closes it (the last line of history runs to its
     * end) and reads what the database holds; the history, for the oracle. Throws what the cluster or the database
     * threw where the runner cannot go on; a job that fails is part of the history, not an exception.
     */
    public History run(Scenario scenario) throws Exception {
        history = new History(scenario.mode());
        Faults.reset(sinkId);
        ProtocolTrace.reset(sinkId);
        Gate.reset(sinkId);
        LOG.info("Explorer {}: {}", sinkId, scenario.mode().text());
        try {
            for (Step step : scenario.steps()) {
                LOG.info("Explorer {}: {}", sinkId, step);
                apply(step);
            }
            close();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception | AssertionError e) {
            // A job that never ends, a wait that never comes true: the oracle reports it with the scenario,
            // which a bare exception would not carry.
            LOG.warn("Explorer {}: the scenario could not be run to its end", sinkId, e);
            history.unfinished = rootMessage(e);
        } finally {
            endRunning();
        }
        history.trace(ProtocolTrace.events(sinkId));
        target.read(history);
        history.committed = committed();
        history.preparedAtEnd = History.names(backend.prepared(sinkId));
        return history;
    }

    private void apply(Step step) throws Exception {
        if (step instanceof Step.Start) {
            start((Step.Start) step, false);
            return;
        }
        if (step instanceof Step.SlowCommits) {
            slowCommits = true;
            Faults.lag(sinkId, Faults.Point.BEFORE_COMMIT, Step.SlowCommits.LAG);
            return;
        }
        if (step instanceof Step.Resolve) {
            resolve();
            return;
        }
        if (!running()) {
            history.notes.add("skipped '" + step + "': no job runs");
            return;
        }
        if (step instanceof Step.Progress progress) {
            progress(progress.records);
        } else if (step instanceof Step.Checkpoint) {
            checkpoint();
        } else if (step instanceof Step.Decline) {
            Gate.declineNext(sinkId);
            checkpoint();
        } else if (step instanceof Step.Savepoint) {
            savepoint();
        } else if (step instanceof Step.Stop stop) {
            stop(stop.drain);
        } else if (step instanceof Step.Cancel) {
            cancel();
        } else if (step instanceof Step.Fail fail) {
            Faults.arm(sinkId, fail.point, 1);
        } else if (step instanceof Step.Delay delay) {
            Faults.arm(sinkId, delay.point, 1, arrival -> pause(delay.millis));
        } else if (step instanceof Step.Crash) {
            crash();
        } else if (step instanceof Step.Stall stall) {
            stall(stall.millis);
        }
    }

    /**
     * Kills the database (SIGKILL: every session and open transaction dies, prepared ones survive) and
     * starts it again on the same data; the job's tasks fail over meanwhile, as many times as it takes.
     */
    private void crash() {
        if (server.isEmpty()) {
            history.notes.add("skipped 'crash': " + backend.name() + " has no server to crash");
            return;
        }
        server.get().crash();
        server.get().restart();
    }

    /**
     * Runs the operator's tool on the job that ran last, against its newest snapshot, as docs/operations.md
     * says to for a dead job; records what it finished ({@link ProtocolTrace.Kind#RESOLVED}) and how it
     * ended. Skipped while a job runs, where there is no tool, and after a job that was not stopped or
     * cancelled or left no snapshot.
     */
    private void resolve() throws Exception {
        // A dead job is one stopped or cancelled: one that finished committed everything (and Flink deleted the
        // checkpoints after its savepoints), one refused or failed left nothing of its own to finish.
        boolean dead = current != null && (current.end == History.End.CANCELED || current.end == History.End.STOPPED);
        if (resolver.isEmpty() || running() || !dead || current.snapshots.isEmpty()) {
            history.notes.add("skipped 'resolve': "
                    + (resolver.isEmpty()
                            ? "no eosink-admin in this suite"
                            : running()
                                    ? "a job runs"
                                    : !dead
                                            ? "the last job was not stopped or cancelled"
                                            : "the last job left no snapshot"));
            return;
        }
        History.Snapshot newest = current.snapshots.stream()
                .max(java.util.Comparator.comparingLong(s -> s.checkpointId))
                .orElseThrow();
        Set<String> preparedBefore = History.names(backend.prepared(sinkId));
        Resolver.Outcome outcome = resolver.get().resolve(sinkId, snapshotPath(newest));
        Set<String> committed = markers();
        Set<String> preparedAfter = History.names(backend.prepared(sinkId));
        for (String gid : preparedBefore) {
            if (!preparedAfter.contains(gid)) {
                ProtocolTrace.resolved(sinkId, gid, committed.contains(gid) ? "COMMITTED" : "ROLLED_BACK");
            }
        }
        history.resolutions.add(new History.Resolution(current, newest, outcome.exitCode, outcome.printed));
        LOG.info(
                "Explorer {}: eosink-admin resolve {} exited {}:\n{}",
                sinkId,
                newest,
                outcome.exitCode,
                outcome.printed);
    }

    /** A snapshot's directory: Flink names it by URI ({@code file:/...}). */
    private static Path snapshotPath(History.Snapshot snapshot) {
        return snapshot.path.startsWith("file:") ? Path.of(java.net.URI.create(snapshot.path)) : Path.of(snapshot.path);
    }

    /** Freezes the database for {@code millis} while the job runs on, then lets it answer again. */
    private void stall(int millis) {
        if (server.isEmpty()) {
            history.notes.add("skipped 'stall': " + backend.name() + " has no server to stall");
            return;
        }
        server.get().stall(Duration.ofMillis(millis));
    }

    /** A delay in a task's thread; a cancel interrupts it as it would a slow database call. */
    private static void pause(int millis) throws java.io.InterruptedIOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("delay interrupted");
        }
    }

    // ---------------------------------------------------------------- starting a job

    private void start(Step.Start asked, boolean closing) throws Exception {
        Step.Start start = asked;
        if (job != null) {
            history.notes.add("'" + start + "' while run " + current.index + " still ran: cancelled it first");
            cancel();
        }
        History.Snapshot origin = origin(start);
        if (origin != null && origin.drained && !sameTopology(start, origin.run.start)) {
            // A stop with --drain ends every operator, and the snapshot records them finished: Flink resumes
            // it only as the same job (its docs: drain to end a job for good). So the explorer restores a
            // drained savepoint only with the sink's state and the chains of the job that took it.
            Step.Start taken = origin.run.start;
            history.notes.add("'" + start + "' restores a drained savepoint: as the job that took it");
            start = start.withSinkState(true).withChaining(taken.chaining, taken.gateChained);
        }
        String uid = start.sinkState && origin != null
                ? origin.run.sinkUid
                : start.sinkState ? "eosink" : "eosink-" + history.runs.size();
        boolean restored = origin != null && uid.equals(origin.run.sinkUid);
        History.Run run = new History.Run(history.runs.size(), start, origin, uid, restored, closing);
        history.runs.add(run);
        current = run;
        run.markersBefore = markers();
        run.preparedBefore = History.names(backend.prepared(sinkId));
        run.firstSeq = ProtocolTrace.lastSeq();

        // Enough restarts to outlast a crashed database's restart on a busy machine (seconds); a job that
        // fails for longer fails for good, and the oracle reports it.
        Configuration conf = TestJobs.fixedDelayRestarts(300, Duration.ofMillis(100));
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                checkpoints(run).toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 1_000);
        if (origin != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, origin.path);
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
        if (start.fixedJobId) {
            conf.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, fixedJobId.toHexString());
            ForgetfulHaServicesFactory.awaitCleanedUp(fixedJobId, fixedSubmissions, TestJobs.TIMEOUT);
        }
        StreamExecutionEnvironment env = TestJobs.manualEnv(start.parallelism, conf);
        if (start.chaining == Step.Chaining.JOB_OFF) {
            env.disableOperatorChaining();
        }
        DataStreamSink<Long> sink = target.gated(env, start, new Gate(sinkId), RATE)
                .sinkTo(sink(start.leftoverPolicy, start.rewindPolicy))
                .uid(uid)
                .name("eosink");
        if (start.chaining == Step.Chaining.SINK_OFF) {
            sink.disableChaining();
        }
        job = env.executeAsync("explore " + sinkId + " run " + run.index);
        run.jobId = job.getJobID();
        if (start.fixedJobId) {
            fixedSubmissions++;
            if (!run.jobId.equals(fixedJobId)) {
                throw new IllegalStateException(
                        "run " + run.index + " got job id " + run.jobId + ", not " + fixedJobId);
            }
        }
        awaitWriting(start.parallelism);
    }

    /**
     * Waits until every writer of the new job opened and took a record, or the job ended (a refusal at
     * start): the next step then meets a job that writes, not one still deploying.
     */
    private void awaitWriting(int writers) throws Exception {
        long written = ProtocolTrace.written(sinkId);
        long deadline = System.nanoTime() + TestJobs.TIMEOUT.toNanos();
        while (running() && ProtocolTrace.writers(sinkId) < writers) {
            if (System.nanoTime() > deadline) {
                history.notes.add("run " + current.index + ": its writers did not all open within "
                        + TestJobs.TIMEOUT.toSeconds() + " s");
                return;
            }
            Thread.sleep(10);
        }
        // A restore after the end of the input has nothing to write: wait a little, not for ever.
        long firstRecord = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (running() && ProtocolTrace.written(sinkId) == written && System.nanoTime() < firstRecord) {
            Thread.sleep(10);
        }
    }

    private static boolean sameTopology(Step.Start start, Step.Start taken) {
        return start.sinkState && start.chaining == taken.chaining && start.gateChained == taken.gateChained;
    }

    private ExactlyOnceSink<Long> sink(LeftoverPolicy leftover, RewindPolicy rewind) {
        SinkSpec spec =
                SinkSpec.of(sinkId, target.name).withLeftoverPolicy(leftover).withRewindPolicy(rewind);
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(target.sink(spec)));
    }

    private History.Snapshot origin(Step.Start start) {
        List<History.Snapshot> taken = usable();
        if (start.origin == Step.Origin.FRESH || taken.isEmpty()) {
            return null;
        }
        return start.origin == Step.Origin.NEWEST
                ? taken.get(taken.size() - 1)
                : taken.get(start.snapshot % taken.size());
    }

    /**
     * The snapshots a job may still restore. A plain savepoint's transactions stay prepared until a
     * checkpoint after it completes; if its job fails over before that, the restart rolls them back, and
     * restoring the savepoint later reports them LOST, as docs/guarantees.md says ("Plain savepoints").
     * A rewind past a snapshot rolls back its transactions likewise. So a snapshot whose job's
     * transactions named up to its checkpoint were rolled back since is not restored again.
     */
    private List<History.Snapshot> usable() {
        // The trace read once: the last rollback of each transaction, and the prepares.
        Map<String, Long> lastRolledBack = new java.util.HashMap<>();
        List<ProtocolTrace.Event> prepares = new java.util.ArrayList<>();
        for (ProtocolTrace.Event e : ProtocolTrace.events(sinkId)) {
            if (e.kind == ProtocolTrace.Kind.ROLLED_BACK
                    || e.kind == ProtocolTrace.Kind.RESOLVED && e.outcome.equals("ROLLED_BACK")) {
                lastRolledBack.merge(e.gid, e.seq, Math::max);
            } else if (e.kind == ProtocolTrace.Kind.PREPARED) {
                prepares.add(e);
            }
        }
        List<History.Snapshot> usable = new java.util.ArrayList<>();
        for (History.Snapshot snapshot : history.snapshots) {
            boolean promisedRolledBack = prepares.stream()
                    .anyMatch(e -> snapshot.run.owns(e)
                            && e.seq <= snapshot.takenSeq
                            && e.checkpointOfGid() <= snapshot.checkpointId
                            && lastRolledBack.getOrDefault(e.gid, Long.MIN_VALUE) > snapshot.takenSeq);
            if (promisedRolledBack) {
                if (!snapshot.unusable) {
                    snapshot.unusable = true;
                    history.notes.add(snapshot + " is not restored again: transactions it promised were rolled back "
                            + "since (a failover before a checkpoint after a plain savepoint, or a rewind past it)");
                }
            } else {
                usable.add(snapshot);
            }
        }
        return usable;
    }

    private Path checkpoints(History.Run run) {
        return dir.resolve("checkpoints-" + run.index);
    }

    // ---------------------------------------------------------------- moves while a job runs

    private boolean running() throws Exception {
        if (job == null) {
            return false;
        }
        if (job.getJobStatus().get().isGloballyTerminalState()) {
            ended(terminalEnd());
            return false;
        }
        return true;
    }

    private void progress(int records) throws Exception {
        long wanted = ProtocolTrace.written(sinkId) + records;
        long last = -1;
        long still = System.nanoTime();
        while (ProtocolTrace.written(sinkId) < wanted && running()) {
            long now = ProtocolTrace.written(sinkId);
            if (now != last) {
                last = now;
                still = System.nanoTime();
            } else if (System.nanoTime() - still > TimeUnit.SECONDS.toNanos(5)) {
                return; // the input has ended, or the job restarts: the step has waited long enough
            }
            Thread.sleep(20);
        }
    }

    private void checkpoint() throws Exception {
        try {
            long id = client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED)
                    .get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("Explorer {}: checkpoint {} completed", sinkId, id);
        } catch (ExecutionException | TimeoutException e) {
            history.notes.add("run " + current.index + ": a checkpoint did not complete (" + rootMessage(e) + ")");
        }
    }

    private void savepoint() throws Exception {
        try {
            String path = TestJobs.savepoint(job, dir.resolve("savepoints"));
            addSnapshot(path, "savepoint");
        } catch (ExecutionException e) {
            history.notes.add("run " + current.index + ": a savepoint failed (" + rootMessage(e) + ")");
        }
    }

    private void stop(boolean drain) throws Exception {
        String path;
        boolean failedStopping = false;
        try {
            path = TestJobs.stopWithSavepoint(job, drain, dir.resolve("savepoints"));
        } catch (ExecutionException e) {
            Optional<StopWithSavepointStoppingException> stopping =
                    ExceptionUtils.findThrowable(e, StopWithSavepointStoppingException.class);
            if (stopping.isEmpty()) {
                history.notes.add("run " + current.index + ": a stop failed (" + rootMessage(e) + ")");
                return;
            }
            // Flink's own outcome when a task fails after the savepoint completed (here: a fault in the
            // commit it notified): the job fails, and the savepoint is the one to resume from.
            path = stopping.get().getSavepointPath();
            failedStopping = true;
            history.notes.add("run " + current.index + ": its savepoint completed, then the job failed while "
                    + "stopping; Flink says to resume from that savepoint");
        }
        addSnapshot(path, drain ? "stop --drain savepoint" : "stop savepoint");
        if (failedStopping) {
            endWithin(Duration.ofSeconds(10));
        }
        awaitTerminal();
        ended(failedStopping || job.getJobStatus().get() == JobStatus.FINISHED ? History.End.STOPPED : terminalEnd());
    }

    private void cancel() throws Exception {
        try {
            job.cancel().get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // it ended meanwhile
        }
        awaitTerminal();
        History.End end = job.getJobStatus().get() == JobStatus.CANCELED ? History.End.CANCELED : terminalEnd();
        History.Run run = current;
        ended(end);
        Optional<Path> retained = RetainedCheckpoints.newest(checkpoints(run));
        long newestSnapshot =
                run.snapshots.stream().mapToLong(s -> s.checkpointId).max().orElse(-1);
        // A savepoint taken after the job's last checkpoint is newer: the retained checkpoint adds nothing then.
        // Flink deletes a finished job's checkpoints: only a cancelled one's stay.
        if (end == History.End.CANCELED
                && retained.isPresent()
                && RetainedCheckpoints.number(retained.get()) > newestSnapshot) {
            history.snapshots.add(new History.Snapshot(
                    history.snapshots.size(),
                    retained.get().toUri().toString(),
                    RetainedCheckpoints.number(retained.get()),
                    run,
                    "retained checkpoint",
                    false));
            history.snapshots.get(history.snapshots.size() - 1).takenSeq = run.lastSeq;
            run.snapshots.add(history.snapshots.get(history.snapshots.size() - 1));
        }
    }

    private void addSnapshot(String path, String kind) throws Exception {
        History.Snapshot snapshot = new History.Snapshot(
                history.snapshots.size(), path, TestJobs.checkpointIdOf(path), current, kind, kind.contains("--drain"));
        snapshot.takenSeq = ProtocolTrace.lastSeq();
        history.snapshots.add(snapshot);
        current.snapshots.add(snapshot);
    }

    // ---------------------------------------------------------------- the end of a job, and of the scenario

    /** Cancels the job unless it reaches a terminal status by itself within {@code limit}. */
    private void endWithin(Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                history.notes.add("run " + current.index + ": still running " + limit.toSeconds()
                        + " s after its stop failed; cancelled");
                TestJobs.cancelUnlessDone(job);
                return;
            }
            Thread.sleep(50);
        }
    }

    private void awaitTerminal() throws Exception {
        TestJobs.await(
                () -> {
                    try {
                        return job.getJobStatus().get().isGloballyTerminalState();
                    } catch (Exception e) {
                        return false;
                    }
                },
                "job " + job.getJobID() + " to end");
    }

    /** How a job that reached a terminal status by itself ended: finished, refused, or failed. */
    private History.End terminalEnd() throws Exception {
        JobStatus status = job.getJobStatus().get();
        if (status == JobStatus.FINISHED) {
            return History.End.FINISHED;
        }
        if (status == JobStatus.CANCELED) {
            return History.End.CANCELED;
        }
        try {
            job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return History.End.FAILED;
        } catch (ExecutionException e) {
            String messages = TestJobs.messages(e);
            current.failure = messages.length() > 2_000 ? messages.substring(0, 2_000) + "..." : messages;
            if (messages.contains("mixed operator finished state")) {
                return History.End.NOT_STARTED;
            }
            return Oracle.refusal(messages).isPresent() ? History.End.REFUSED : History.End.FAILED;
        }
    }

    private void ended(History.End end) throws Exception {
        History.Run run = current;
        run.end = end;
        job = null;
        TestJobs.await(
                () -> backend.openSessions(sinkId) == 0, "the sessions of " + sinkId + " to close", SESSIONS_GONE);
        run.lastSeq = ProtocolTrace.lastSeq();
        run.markersAfter = markers();
        run.preparedAfter = History.names(backend.prepared(sinkId));
        LOG.info("Explorer {}: {}", sinkId, run);
    }

    /**
     * Ends the scenario on a line of history that holds every id: the running job runs to its end, or a
     * last job resumes the last one's newest snapshot (fresh, if it has none) and does.
     */
    private void close() throws Exception {
        if (running()) {
            finish();
        }
        History.Run last = current;
        if (last != null && last.end == History.End.FINISHED) {
            return;
        }
        List<History.Snapshot> usable = usable();
        History.Snapshot from = null;
        for (History.Run run = last; run != null && from == null; run = run.origin == null ? null : run.origin.run) {
            for (History.Snapshot snapshot : run.snapshots) {
                if (usable.contains(snapshot)) {
                    from = snapshot; // the newest usable one of the line, the last run's first
                }
            }
            if (from == null && run.origin != null && usable.contains(run.origin)) {
                from = run.origin;
            }
        }
        // The topology of the job that took the snapshot: Flink restores a snapshot taken with --drain only
        // into the same chains (History.End.NOT_STARTED).
        // PICKED counts among the usable snapshots (origin()), not among all of them.
        Step.Start closing = new Step.Start(
                from == null ? Step.Origin.FRESH : Step.Origin.PICKED,
                from == null ? 0 : usable.indexOf(from),
                true,
                false,
                2,
                from == null ? Step.Chaining.ON : from.run.start.chaining,
                from == null || from.run.start.gateChained,
                from == null ? LeftoverPolicy.ROLLBACK : LeftoverPolicy.FAIL,
                RewindPolicy.WARN);
        Faults.reset(sinkId); // a fault armed but never reached belongs to the scenario, not to its closing
        if (slowCommits) {
            Faults.lag(sinkId, Faults.Point.BEFORE_COMMIT, Step.SlowCommits.LAG); // the world's, not a fault
        }
        start(closing, true);
        finish();
        History.Run refused = current;
        Set<String> abandoned = Oracle.abandonedOnNewIndices(refused, history);
        if (refused.end == History.End.REFUSED
                && Oracle.refusal(refused.failure).filter("leftovers"::equals).isPresent()
                && !abandoned.isEmpty()) {
            // The documented remedy (docs/guarantees.md, "A rescale up over another run's transactions"): roll
            // back what the snapshot never promised, as eosink-admin resolve against it would, and restore again.
            Set<String> stillPrepared = History.names(backend.prepared(sinkId));
            for (String gid : abandoned) {
                if (stillPrepared.contains(gid)) {
                    backend.rollbackPrepared(TransactionId.parse(gid).orElseThrow());
                    ProtocolTrace.resolved(sinkId, gid, "ROLLED_BACK");
                }
            }
            // Those rollbacks may have made another snapshot unusable: PICKED counts among the usable ones.
            int again = usable().indexOf(from);
            if (again < 0) {
                throw new IllegalStateException("the remedy made " + from + " unusable");
            }
            history.notes.add("run " + refused.index + " was refused for " + abandoned + ", of subtask indices its "
                    + "snapshot did not have: rolled back as documented, and the snapshot restored again");
            start(
                    new Step.Start(
                            Step.Origin.PICKED,
                            again,
                            true,
                            false,
                            closing.parallelism,
                            closing.chaining,
                            closing.gateChained,
                            closing.leftoverPolicy,
                            closing.rewindPolicy),
                    true);
            finish();
        }
    }

    private void finish() throws Exception {
        long deadline = System.nanoTime() + TestJobs.TIMEOUT.toNanos() * 2;
        while (running()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("run " + current.index + " of " + sinkId + " did not finish");
            }
            // A trigger that races the job's end may never be answered: wait on it only while the job runs.
            CompletableFuture<Long> trigger = client.triggerCheckpoint(job.getJobID(), CheckpointType.CONFIGURED);
            while (!trigger.isDone()
                    && !job.getJobStatus().get().isGloballyTerminalState()
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(100);
        }
    }

    /** Cancels a job the scenario left running (after a failure of the runner itself). */
    private void endRunning() {
        if (job != null) {
            TestJobs.cancelUnlessDone(job);
            job = null;
        }
    }

    private java.util.Set<String> markers() {
        java.util.Set<String> names = new java.util.HashSet<>();
        committed().keySet().forEach(id -> names.add(id.toString()));
        return names;
    }

    /** The sink's markers; none before any writer of it opened (the first one creates the marker table). */
    private java.util.Map<dev.eosink.core.TransactionId, Long> committed() {
        try {
            return backend.committed(sinkId);
        } catch (IllegalStateException e) {
            if (!ProtocolTrace.traces(sinkId)) {
                return java.util.Map.of();
            }
            throw e;
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
