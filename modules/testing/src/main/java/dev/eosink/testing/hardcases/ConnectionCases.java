/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.testing.TcpProxy;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.JobFailures;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.hardcases.HardCaseBackend.OwnServer;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static dev.eosink.testing.hardcases.TestJobs.await;
import static dev.eosink.testing.hardcases.TestJobs.cancelUnlessDone;
import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.fixedDelayRestarts;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connections fail: cut (the server ends the sink's sessions, as a network failure does), cut
 * between a commit and its answer, stalled (nothing moves, every socket stays open), held (the client
 * died while its prepare was still on its way to the server), or the server itself is killed. Faults
 * are real: sessions ended on the server, a {@link TcpProxy} between the sink and the server.
 *
 * <p>JDBC only: each case acts on the sink's connections or on the server (ends its sessions by their
 * names, proxies its URL, kills it), which a resource without connections does not have.
 */
public interface ConnectionCases extends JdbcHardCaseSupport {

    /**
     * The connection of an open transaction dies mid-epoch: every session of the sink is ended while a
     * writer writes. The writer must not open a new transaction and carry on (the epoch's rows so far
     * died with the session): its task fails, and the replay from the last checkpoint writes the epoch once.
     */
    @Test
    default void lostConnectionMidEpochFailsTheTaskAndReplays() throws Exception {
        AtomicInteger cut = new AtomicInteger();
        Faults.arm(
                sinkId(), Faults.Point.WRITE, 1_500, a -> cut.set(backend().cutSessions(sinkId(), SessionScope.all())));
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 3_000).sinkTo(sink());
        env.execute("connections cut mid-epoch");
        assertThat(Faults.fired(sinkId(), Faults.Point.WRITE)).isEqualTo(1);
        assertThat(cut.get()).as("sessions ended").isPositive();
        assertExactlyOnce(4_000);
    }

    /**
     * One writer's transaction session alone dies mid-epoch. Its task fails (the job's exception
     * history shows exactly that one failure); it prepares nothing more after its session died; it
     * restarts alone while the other subtask keeps running; the replay writes the epoch once. What the
     * failure says is the driver's and the sink module's own (checked there). Ending every
     * session instead fails every task: {@link #lostConnectionMidEpochFailsTheTaskAndReplays}.
     */
    @Test
    default void writerConnectionLostMidEpochFailsTheTaskAndReplays(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        {
            AtomicReference<Faults.Arrival> hit = new AtomicReference<>();
            AtomicInteger cut = new AtomicInteger();
            AtomicLong traceMark = new AtomicLong();
            Faults.arm(sinkId(), Faults.Point.WRITE, 1_500, a -> {
                // Runs on the writer's own thread: the next statement of its session fails.
                hit.set(a);
                cut.set(backend().cutSessions(sinkId(), SessionScope.writer(a.subtask)));
                traceMark.set(ProtocolTrace.events(a.sinkId).stream()
                        .mapToLong(e -> e.seq)
                        .max()
                        .orElse(0));
            });
            StreamExecutionEnvironment env = env(2, 200);
            ids(env, 4_000, 4_000).sinkTo(sink());
            JobClient job = env.executeAsync("writer connection lost");
            job.getJobExecutionResult().get();

            assertThat(Faults.fired(sinkId(), Faults.Point.WRITE)).isEqualTo(1);
            assertThat(cut.get()).as("writer sessions ended").isEqualTo(1);
            int subtask = hit.get().subtask;
            // Never carried on: after its session died, attempt 0 of that writer prepared nothing more.
            List<String> preparedAfter = ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.PREPARED).stream()
                    .filter(e -> e.subtask == subtask && e.attempt == 0 && e.seq > traceMark.get())
                    .map(Object::toString)
                    .collect(Collectors.toList());
            assertThat(preparedAfter)
                    .as("transactions prepared by the writer after its session died")
                    .isEmpty();
            assertThat(Faults.writerAttempts(sinkId(), subtask)).containsExactly(0, 1);
            assertThat(Faults.writerAttempts(sinkId(), 1 - subtask)).containsExactly(0);

            assertThat(JobFailures.of(cluster, job.getJobID()))
                    .as("failures in the job's exception history")
                    .hasSize(1);
            assertExactlyOnce(4_000);
        }
    }

    /**
     * Every session of the sink is ended right before a commit: the commit goes out on a dead
     * connection. The committer must treat the outcome as unknown, look again on a new connection and
     * commit (the writers' tasks fail over, their guard sessions gone); nothing is committed twice.
     */
    @Test
    default void commitOnALostConnectionIsRetriedOnANewOne() throws Exception {
        Faults.arm(sinkId(), Faults.Point.BEFORE_COMMIT, 3, a -> backend().cutSessions(sinkId(), SessionScope.all()));
        StreamExecutionEnvironment env = env(1, 200);
        CheckpointPacedIds.ids(env, 3_000, 500).sinkTo(sink());
        env.execute("connections cut before a commit");
        assertThat(Faults.fired(sinkId(), Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertExactlyOnce(3_000);
    }

    /**
     * A committer's connection dies with a commit on its way: the request never reaches the server (a
     * proxy holds it back and resets the committer's side of the connection at once), so the commit
     * fails with an unknown outcome. The committer looks again on a new connection and commits, within
     * its first attempt: no task fails, nothing is committed twice. {@link
     * #commitOnALostConnectionIsRetriedOnANewOne} ends every session of the sink instead.
     *
     * <p>The connection dies as the commit goes out, never before: a pool may validate a connection that
     * waited (HikariCP does after 500 ms idle) and replace a dead one before the commit, which then never
     * meets the loss. Ending the committers' sessions on the server before a commit depended on the time
     * since the committer's last commit, which a busy machine, or a committer in a task of its own, shifts.
     */
    @Test
    default void commitOnALostCommitterConnectionIsRetriedWithoutAFailover() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(backend().jdbcUrl())) {
            AtomicReference<String> hit = new AtomicReference<>();
            // The third commit of the job (the input waits for it), on the committer's thread just before
            // it goes out: after commits on the same connections.
            Faults.arm(sinkId(), Faults.Point.BEFORE_COMMIT, 3, a -> {
                hit.set(a.transactionId);
                proxy.holdWhenClientSends(backend()
                        .commitRequest(TransactionId.parse(a.transactionId).orElseThrow()));
            });
            StreamExecutionEnvironment env = env(2, 100);
            FaultPacedIds.ids(env, 4_000, 4_000, sinkId(), Faults.Point.BEFORE_COMMIT)
                    .sinkTo(sink(spec().withJdbcUrl(proxy.jdbcUrl(backend().jdbcUrl()))));
            env.execute("committer connection lost");

            assertThat(Faults.fired(sinkId(), Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
            assertThat(proxy.holds())
                    .as("commits held back from the server, their connection reset")
                    .isEqualTo(1);
            // The first commit failed on the dead connection (outcome unknown), the retry on a new
            // connection committed it; all within the committer's first attempt.
            assertThat(ProtocolTrace.history(sinkId(), hit.get()))
                    .containsExactly("PREPARED@0", "COMMIT:RetriableCommitException@0", "COMMIT:COMMITTED@0");
            assertNoFailover();
            assertExactlyOnce(4_000);
        }
    }

    /**
     * The commit succeeded but its answer was lost (the fault throws what a session throws for a
     * broken connection right after the commit). The committer looks again, finds the transaction gone
     * and its marker present, and counts it committed; no task fails.
     */
    @Test
    default void commitWhoseReplyWasLostIsProvedByItsMarker() throws Exception {
        AtomicReference<String> hit = new AtomicReference<>();
        Faults.arm(sinkId(), Faults.Point.AFTER_COMMIT, 4, a -> {
            hit.set(a.transactionId);
            throw new RetriableCommitException(
                    "injected: the commit of " + a.transactionId + " succeeded, its reply was lost", null);
        });
        StreamExecutionEnvironment env = env(2, 200);
        CheckpointPacedIds.ids(env, 4_000, 500).sinkTo(sink());
        env.execute("commit reply lost");

        assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_COMMIT)).isEqualTo(1);
        assertThat(ProtocolTrace.history(sinkId(), hit.get()))
                .containsExactly("PREPARED@0", "COMMIT:COMMITTED@0", "COMMIT:NOT_FOUND@0", "MARKER:true@0");
        assertNoFailover();
        assertExactlyOnce(4_000);
    }

    /**
     * The task manager dies while its prepare is still on its way to being executed. A proxy holds
     * that request back and resets the client at once (the writer's task fails, the restarted writer
     * opens), keeps the transaction's session open on the server, and delivers the prepare a second
     * after the restarted writer opened, when it would long have listed the prepared transactions: the
     * transaction is prepared after that listing.
     *
     * <p>Where the restarted writer can wait for that session (through the ownership guard, or a branch
     * lock of its own where the guard lives on another session), it must, and roll the transaction back;
     * without that wait, it stays prepared, holding its locks, and this test finds it left. Where the
     * database gives the sink no such lock ({@link Capability#WAITS_FOR_EARLIER_SESSIONS}: Firebird), the
     * restarted writer waits for nothing: the job ends exact while the prepare is still held back, the
     * prepare arrives after the end, and its transaction stays prepared until the next start of the sink
     * id ({@link #assertTheHeldPrepareIsLeftUntilTheNextStart}).
     */
    @Test
    default void aPrepareStillRunningWhenTheWriterRestartsIsWaitedForAndRolledBack() throws Exception {
        boolean waits = !backend().lacks(Capability.WAITS_FOR_EARLIER_SESSIONS);
        AtomicReference<String> held = new AtomicReference<>();
        LogCapture logs = LogCapture.attach();
        try (TcpProxy proxy = TcpProxy.to(backend().jdbcUrl())) {
            // The third prepare of the job: after checkpoints completed, so the restart restores one.
            Faults.arm(sinkId(), Faults.Point.BEFORE_PREPARE, 3, a -> {
                held.set(a.transactionId);
                proxy.holdWhenClientSends(backend()
                        .prepareRequest(TransactionId.parse(a.transactionId).orElseThrow()));
            });
            StreamExecutionEnvironment env = env(1, 200);
            CheckpointPacedIds.ids(env, 3_000, 500)
                    .sinkTo(sink(spec().withJdbcUrl(proxy.jdbcUrl(backend().jdbcUrl()))));
            JobClient job = env.executeAsync("prepare still running at the restart");
            try {
                await(
                        () -> proxy.holds() == 1
                                && Faults.writerAttempts(sinkId(), 0).size() > 1,
                        "the restarted writer");
                Thread.sleep(1_000); // a writer that does not wait lists the prepared transactions within milliseconds
                if (waits) {
                    assertThat(preparedLeft())
                            .as("the held transaction is not prepared yet")
                            .isEmpty();
                    proxy.releaseHeld();
                    job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
                } else {
                    // The restarted writer runs on (its own transactions come and go): only the held one is
                    // known not to be prepared.
                    assertThat(preparedLeft())
                            .as("the held transaction is not prepared yet")
                            .doesNotContain(held.get());
                    job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
                    proxy.releaseHeld();
                    await(() -> preparedLeft().contains(held.get()), "the held prepare, delivered after the job ended");
                }
            } finally {
                proxy.releaseHeld();
                cancelUnlessDone(job);
            }
        } finally {
            logs.detach();
        }
        assertThat(Faults.fired(sinkId(), Faults.Point.BEFORE_PREPARE)).isEqualTo(1);
        if (!waits) {
            assertTheHeldPrepareIsLeftUntilTheNextStart(held.get(), 3_000, logs);
            return;
        }
        assertExactlyOnce(3_000);
    }

    /**
     * A session of this very job that is still going away holds what a restarted writer waits for: the
     * task manager died while its prepare was on its way (a proxy holds that request back and resets the
     * client), and its session lives on at the server, holding the ownership guard (PostgreSQL) or the
     * branch lock (XA). With a claimWait of 1 s the restarted writers give up on it, twice; unlike a guard
     * held by another job, that is no misconfiguration: the job keeps restarting under Flink's default
     * restart strategy, and once the session ended (the prepare delivered), it runs on and ends exact.
     *
     * <p>Where the database gives the sink no branch lock ({@link Capability#WAITS_FOR_EARLIER_SESSIONS}:
     * Firebird, whose guard session of the dead writer ends with its task), the restarted writer finds
     * nothing to wait for and gives up on nothing: it starts once, the job ends exact while the prepare is
     * still held back, and the prepare, delivered after the end, leaves its transaction prepared until the
     * next start of the sink id ({@link #assertTheHeldPrepareIsLeftUntilTheNextStart}).
     */
    @Test
    default void aSessionOfAnEarlierAttemptStillGoingAwayKeepsTheJobRestarting() throws Exception {
        boolean waits = !backend().lacks(Capability.WAITS_FOR_EARLIER_SESSIONS);
        AtomicReference<String> held = new AtomicReference<>();
        LogCapture logs = LogCapture.attach();
        try (TcpProxy proxy = TcpProxy.to(backend().jdbcUrl())) {
            // The third prepare of the job: after checkpoints completed, so the restart restores one.
            Faults.arm(sinkId(), Faults.Point.BEFORE_PREPARE, 3, a -> {
                held.set(a.transactionId);
                proxy.holdWhenClientSends(backend()
                        .prepareRequest(TransactionId.parse(a.transactionId).orElseThrow()));
            });
            StreamExecutionEnvironment env = TestJobs.envWithDefaultRestarts(1, 200);
            CheckpointPacedIds.ids(env, 3_000, 500)
                    .sinkTo(sink(spec().withJdbcUrl(proxy.jdbcUrl(backend().jdbcUrl()))
                            .withClaimWait(Duration.ofSeconds(1))));
            JobClient job = env.executeAsync(
                    // Not the words of the sink's message, which the logs are searched for below.
                    "an earlier attempt's session still going away");
            try {
                if (waits) {
                    // Starts 0 (held), 1 and 2: the writer of attempt 1 gave up on the held session, and the job
                    // restarted.
                    await(
                            () -> proxy.holds() == 1
                                    && Faults.writerStarts(sinkId(), 0).size() >= 3,
                            "a restarted writer that gave up on the held session, and a restart after it");
                    assertThat(job.getJobStatus().get().isGloballyTerminalState())
                            .as("the job still runs")
                            .isFalse();
                    proxy.releaseHeld();
                    job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
                } else {
                    job.getJobExecutionResult().get(TestJobs.TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
                    assertThat(proxy.holds())
                            .as("prepares held back when the job ended")
                            .isEqualTo(1);
                    assertThat(Faults.writerStarts(sinkId(), 0))
                            .as("writer starts: the one whose prepare is held, the restarted one")
                            .hasSize(2);
                    proxy.releaseHeld();
                    await(() -> preparedLeft().contains(held.get()), "the held prepare, delivered after the job ended");
                }
            } finally {
                proxy.releaseHeld();
                cancelUnlessDone(job);
            }
        } finally {
            logs.detach();
        }
        assertThat(Faults.fired(sinkId(), Faults.Point.BEFORE_PREPARE)).isEqualTo(1);
        assertThat(logs.text())
                .as("what restarted writers gave up on")
                .doesNotContain("a session of another execution");
        if (!waits) {
            assertThat(logs.text()).as("what restarted writers gave up on").doesNotContain("a session of an earlier");
            assertTheHeldPrepareIsLeftUntilTheNextStart(held.get(), 3_000, logs);
            return;
        }
        assertThat(logs.text()).as("what the restarted writers gave up on").contains("a session of an earlier");
        assertExactlyOnce(3_000);
    }

    /**
     * What a database without a branch lock ({@link Capability#WAITS_FOR_EARLIER_SESSIONS}) shows once a job
     * of {@code n} ids ended while a prepare of its first attempt was held back, and that prepare was then
     * delivered: the job's start warned that its restarted writers cannot wait for an earlier writer's
     * sessions; every id is in the target once (the restarted attempt replayed and committed the held
     * transaction's records); and the held transaction is the one left prepared (in limbo), since no recovery
     * of the sink came after it. The next start of the sink id recovers: it finds the transaction, another
     * execution's, and rolls it back as its leftover policy (ROLLBACK here) says; it writes the next ids,
     * and the target holds every id once with nothing prepared left.
     */
    private void assertTheHeldPrepareIsLeftUntilTheNextStart(String held, long n, LogCapture logs) throws Exception {
        assertThat(logs.text())
                .as("the start's warning")
                .contains("cannot wait for the sessions of the writer before it");
        assertThat(preparedLeft()).as("prepared when the job had ended").containsExactly(held);
        assertEachIdOnce(n);

        StreamExecutionEnvironment next = env(1, 200);
        TestJobs.rebalancedIds(next, n, 1_000, 2_000).sinkTo(sink(spec().withLeftoverPolicy(LeftoverPolicy.ROLLBACK)));
        next.execute("the next start of the sink id");
        assertThat(ProtocolTrace.history(sinkId(), held))
                .as("the held transaction, at the next start")
                .contains("ROLLED_BACK@0");
        assertExactlyOnce(n + 1_000);
    }

    /**
     * The network stalls (nothing moves, every socket stays open) in the middle of an epoch, or while a
     * commit is on its way. The driver's read timeout is off, so only the sink's own watchdog can end
     * the stalled call: it must, within the network timeout (2 s here), aborting its connection. The
     * writer's task then fails over, or the committer retries on a new connection; either opens a new
     * connection, which resumes the network. Then the job ends exact. Here the network stalls in the
     * middle of an epoch; {@link #aStalledCommitEndsWithinTheNetworkTimeoutAndTheJobEndsExact} while a
     * commit is on its way.
     */
    @Test
    default void aStalledNetworkEndsWithinTheNetworkTimeoutAndTheJobEndsExact() throws Exception {
        stalledNetworkEndsWithinTheNetworkTimeout(Faults.Point.WRITE);
    }

    /**
     * {@link #aStalledNetworkEndsWithinTheNetworkTimeoutAndTheJobEndsExact}, the network stalled while a
     * commit is on its way: the committer's watchdog ends the commit, and the committer retries on a new
     * connection.
     *
     * <p>Where the driver commits on a connection of its own rather than the committer's ({@link
     * Capability#COMMITS_ON_THE_COMMITTERS_CONNECTION}: Jaybird, for a branch its connection did not prepare),
     * the watchdog is not sure to reach the stalled commit: it ends failed when the abort of the committer's own
     * connection reaches it, or when the network moves again. Then no commit of the sink succeeds while the
     * network stalls, for well past the network timeout (the stall is total: nothing can), and once the network
     * resumes the job ends exact.
     */
    @Test
    default void aStalledCommitEndsWithinTheNetworkTimeoutAndTheJobEndsExact() throws Exception {
        stalledNetworkEndsWithinTheNetworkTimeout(Faults.Point.BEFORE_COMMIT);
    }

    private void stalledNetworkEndsWithinTheNetworkTimeout(Faults.Point point) throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        boolean abortable = point != Faults.Point.BEFORE_COMMIT
                || !backend().lacks(Capability.COMMITS_ON_THE_COMMITTERS_CONNECTION);
        AtomicLong stalledAt = new AtomicLong();
        AtomicLong traceMark = new AtomicLong();
        AtomicInteger acceptedBefore = new AtomicInteger();
        try (TcpProxy proxy = TcpProxy.to(backend().jdbcUrl())) {
            Faults.arm(sinkId(), point, point == Faults.Point.WRITE ? 1_500 : 2, a -> {
                acceptedBefore.set(proxy.connectionsAccepted());
                traceMark.set(ProtocolTrace.lastSeq());
                proxy.stall();
                stalledAt.set(System.nanoTime());
            });
            StreamExecutionEnvironment env = env(1, 200);
            ids(env, 3_000, 3_000)
                    .sinkTo(sink(spec().withJdbcUrl(proxy.jdbcUrl(backend().jdbcUrl()))
                            .withNetworkTimeout(timeout)
                            .withDriverProperty("socketTimeout", "0")));
            JobClient job = env.executeAsync("network stalled at " + point);
            Duration ended = null;
            try {
                await(() -> stalledAt.get() != 0, "the stall");
                if (abortable) {
                    // A stalled call that is never ended opens no new connection: this wait would run out.
                    await(
                            () -> proxy.connectionsAccepted() > acceptedBefore.get(),
                            "a new connection after the stalled call was ended",
                            Duration.ofSeconds(20));
                    ended = Duration.ofNanos(System.nanoTime() - stalledAt.get());
                } else {
                    // Well past the network timeout, and past the watchdog's abort of the committer's own
                    // connection, which the commit does not run on: nothing commits while nothing moves. (A
                    // commit attempt may end meanwhile, failed, as the abort of the committer's connection
                    // reaches it or not; it is retried once the network moves.)
                    Thread.sleep(timeout.multipliedBy(3).toMillis());
                    assertThat(ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.COMMIT).stream()
                                    .filter(e -> e.seq > traceMark.get())
                                    .filter(e -> "COMMITTED".equals(e.outcome) || "NOT_FOUND".equals(e.outcome))
                                    .map(Object::toString))
                            .as("commits that succeeded while the network stalled")
                            .isEmpty();
                }
                proxy.resume();
                job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            } finally {
                proxy.resume();
                cancelUnlessDone(job);
            }
            if (abortable) {
                assertThat(ended)
                        .as("from the stall to the new connection")
                        .isBetween(timeout.minusMillis(100), timeout.plusSeconds(10));
            }
        }
        assertThat(Faults.fired(sinkId(), point)).isEqualTo(1);
        assertExactlyOnce(3_000);
    }

    /**
     * The server is killed (SIGKILL, as a power loss would: no shutdown) right after a writer prepared,
     * and started again on the same data. Every session dies and every open transaction with it; the
     * prepared transactions survive the crash (checked right after the restart: each is still listed,
     * or a restarted writer already resolved it); every writer fails over (its guard session is gone);
     * each surviving transaction is committed or rolled back as its checkpoint decides; the replay
     * writes the rest once. Runs on a server of the test's own.
     */
    @Test
    default void serverCrashRightAfterPrepareLosesNothingAndDuplicatesNothing() throws Exception {
        try (OwnServer server = backend().startOwnServer()) {
            HardCaseBackend crashy = server.backend();
            crashy.createTable(target());
            AtomicReference<List<TransactionId>> beforeCrash = new AtomicReference<>();
            AtomicReference<List<TransactionId>> afterRestart = new AtomicReference<>();
            Faults.arm(sinkId(), Faults.Point.AFTER_PREPARE, 3, a -> {
                beforeCrash.set(crashy.prepared(sinkId()));
                server.crash();
                // join() waits uninterruptibly: the task running this may be cancelled meanwhile.
                CompletableFuture.runAsync(server::restart).join();
                afterRestart.set(crashy.prepared(sinkId()));
            });
            StreamExecutionEnvironment env = env(2, 200, fixedDelayRestarts(1_000, Duration.ofMillis(200)));
            CheckpointPacedIds.ids(env, 4_000, 500).sinkTo(sink(crashy, spec()));
            env.execute("server killed after a prepare");

            assertThat(Faults.fired(sinkId(), Faults.Point.AFTER_PREPARE)).isEqualTo(1);
            assertThat(beforeCrash.get()).as("prepared before the crash").isNotEmpty();
            // The writer whose fault this is waits for the restart; the other subtask's session died with
            // the server, so it fails over alone and may be back, and roll back its own transaction of the
            // pending checkpoint, before the listing below. Whatever the listing misses must be such a
            // rollback (or a commit) by the sink; a transaction the crash lost shows neither.
            List<TransactionId> missing = new ArrayList<>(beforeCrash.get());
            missing.removeAll(afterRestart.get());
            assertThat(missing)
                    .as(
                            "prepared before the crash and not listed right after the restart (listed: %s)",
                            afterRestart.get())
                    .allSatisfy(id -> assertThat(ProtocolTrace.history(sinkId(), id.toString()))
                            .as("%s, resolved by the sink between the restart and the listing", id)
                            .anyMatch(h -> h.startsWith("ROLLED_BACK@") || h.startsWith("COMMIT:COMMITTED@")));
            assertExactlyOnce(crashy, 4_000);
        }
    }

    /** No task of the job failed: every writer ran in attempt 0 only, and every commit was by attempt 0. */
    private void assertNoFailover() {
        assertThat(Faults.writerAttempts(sinkId(), 0)).containsExactly(0);
        assertThat(Faults.writerAttempts(sinkId(), 1)).containsExactly(0);
        assertThat(ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.COMMIT))
                .allSatisfy(e -> assertThat(e.attempt).isZero());
        assertThat(ProtocolTrace.events(sinkId(), ProtocolTrace.Kind.ROLLED_BACK))
                .isEmpty();
    }
}
