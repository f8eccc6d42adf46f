/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.testing.TcpProxy;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.JobFailures;
import dev.eosink.testing.hardcases.ProtocolTrace;
import dev.eosink.testing.hardcases.TestJobs;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Network faults between the sink and PostgreSQL, made by a real TCP proxy ({@link TcpProxy}) that
 * every connection of the sink goes through: connections cut in the middle of an epoch's writes and
 * in the middle of COMMIT PREPARED, and a network that stalls (sockets open, nothing moves) during
 * writes and commits. The job must never hang: the sink's network timeout (2 s here, 120 s by
 * default) ends every stalled call, and Flink's restarts and the committer's retries do the rest.
 * Every test ends exact, with nothing prepared left. {@link NetworkFaultsOverTlsITCase} runs them
 * again with the sessions encrypted.
 */
class NetworkFaultsITCase extends ExactlyOnceTestBase {

    private static final Duration NETWORK_TIMEOUT = Duration.ofSeconds(2);
    /**
     * How long a stall lasts: long enough for the network timeout to fire on a write even when the
     * stall first catches the writer polling the COPY's progress. That poll then ends by the driver's
     * read timeout (seen: 4.3 s into a stall, over TLS), the writer goes on without flow control, and
     * only its next blocked write starts the watchdog's 2 s; a 6 s stall ended before that.
     */
    private static final Duration STALL = Duration.ofSeconds(10);
    /** Padding that makes rows big, so that a stalled COPY fills every buffer on the way within a second. */
    private static final String PADDING = "x".repeat(8_000);

    /** In front of the class's server ({@link #server()}), from its first test to its end. */
    private static TcpProxy proxy;

    private static final Map<String, String> HIT = new ConcurrentHashMap<>();

    @BeforeEach
    void startProxy() throws IOException {
        if (proxy == null) {
            proxy = TcpProxy.to(db.jdbcUrl());
        }
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
            proxy = null;
        }
    }

    @BeforeEach
    void resetTrace() {
        ProtocolTrace.reset(sinkId);
        HIT.remove(sinkId);
    }

    @AfterEach
    void resumeProxy() {
        proxy.resume();
        ProtocolTrace.reset(sinkId);
    }

    /** Through the proxy, with a short network timeout. */
    @Override
    protected PostgresSinkBuilder<Long> sinkBuilder(String sinkId, String table) {
        return super.sinkBuilder(sinkId, table)
                .jdbcUrl(proxy.jdbcUrl(db.jdbcUrl()))
                .networkTimeout(NETWORK_TIMEOUT);
    }

    /** The sink under test, traced and with fault points. */
    private static ExactlyOnceSink<Long> sink(PostgresSinkBuilder<Long> builder) {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(builder.build()));
    }

    /**
     * Every connection is reset while the writers stream an epoch into the open transaction (COPY)
     * or send it in batches: the open transactions die with their sessions, the tasks fail, and the
     * job replays from the last checkpoint.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(WriteMethod.class)
    void connectionsCutMidEpochFailTheTasksAndReplay(WriteMethod method, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Faults.arm(sinkId, Faults.Point.WRITE, 1_500, a -> proxy.cutAll());
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink(sinkBuilder(sinkId, table).writeMethod(method)));
        JobClient job = env.executeAsync("connections cut mid-epoch");
        job.getJobExecutionResult().get();

        assertThat(Faults.fired(sinkId, Faults.Point.WRITE)).isEqualTo(1);
        assertThat(proxy.cuts()).isPositive();
        assertThat(JobFailures.of(cluster, job.getJobID()))
                .as("the job's failures")
                .isNotEmpty()
                .anySatisfy(f -> assertThat(f).contains("sink '" + sinkId + "'").contains("epoch of checkpoint"));
        assertExactlyOnce(4_000);
    }

    /**
     * COMMIT PREPARED reaches the server and commits, and the connection is cut before the answer
     * comes back: the outcome is unknown to the committer. It looks again on a new connection, finds
     * the transaction gone and its marker present: committed, once. No task fails.
     */
    @Test
    void connectionCutMidCommitPreparedIsProvedByItsMarker() throws Exception {
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 4, a -> {
            HIT.put(a.sinkId, a.transactionId);
            proxy.cutWhenClientSends("COMMIT PREPARED '" + a.transactionId + "'");
        });
        StreamExecutionEnvironment env = env(2, 200);
        // At least four epochs with records per subtask: the fourth commit comes.
        CheckpointPacedIds.ids(env, 4_000, 500).sinkTo(sink(sinkBuilder(sinkId, table)));
        env.execute("connection cut mid-commit");

        String gid = HIT.get(sinkId);
        assertThat(gid).as("transaction hit").isNotNull();
        assertThat(ProtocolTrace.history(sinkId, gid))
                .containsExactly(
                        "PREPARED@0", "COMMIT:RetriableCommitException@0", "COMMIT:NOT_FOUND@0", "MARKER:true@0");
        assertThat(Faults.writerAttempts(sinkId, 0)).containsExactly(0);
        assertThat(Faults.writerAttempts(sinkId, 1)).containsExactly(0);
        assertExactlyOnce(4_000);
    }

    /**
     * The network stalls while a writer streams big rows by COPY: its write blocks as soon as the
     * buffers on the way are full, which no socket timeout ends. The sink's watchdog aborts the
     * connection after the network timeout, the task fails naming the cause, the restarted tasks'
     * connections time out the same way until the network comes back, and the job ends exact.
     */
    @Test
    void stalledWriteIsAbortedAfterTheNetworkTimeout(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Faults.arm(sinkId, Faults.Point.WRITE, 2_000, a -> proxy.stallFor(STALL));
        StreamExecutionEnvironment env = env(1, 2_000);
        ids(env, 6_000, 3_000).sinkTo(sink(sinkBuilder(sinkId, table).rows(id ->
                new Object[] {id, "row-" + id + PADDING})));
        long t0 = System.nanoTime();
        JobClient job = env.executeAsync("stalled write");
        job.getJobExecutionResult().get();

        assertThat(Faults.fired(sinkId, Faults.Point.WRITE)).isEqualTo(1);
        List<String> failures = JobFailures.of(cluster, job.getJobID());
        assertThat(failures)
                .as("the job's failures")
                .anySatisfy(f -> assertThat(f)
                        .contains("sink '" + sinkId + "' subtask 0/1 (attempt 0)")
                        // Which call the stall catches depends on timing: a write of rows, or the
                        // end of the COPY when the barrier arrives first; both are bounded the same way,
                        // the end of the COPY by whichever of the watchdog and the driver's read timeout
                        // (both 2 s) fires first.
                        .containsPattern("(sending COPY data|ending COPY) did not complete within the network timeout")
                        .containsPattern("of 2 s.*(so the sink aborted the connection|so the connection is lost)")
                        .contains("The connection of the open transaction was lost (SQLSTATE 08006)"));
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0))
                .as("seconds the job took")
                .isLessThan(90);
        assertExactlyOnce(6_000);
    }

    /**
     * Cancelling a job whose writer is stuck writing into a stalled network: Flink interrupts the task
     * thread, which a blocked socket write ignores; the watchdog sees the interrupt and aborts the
     * connection, so the task ends at once instead of after the network timeout (100 s here), or
     * after Flink's cancellation timeout, when Flink would kill the whole TaskManager.
     */
    @Test
    void cancelWhileAWriteIsStalledEndsPromptly(@InjectMiniCluster MiniCluster cluster) throws Exception {
        CompletableFuture<Void> stalled = new CompletableFuture<>();
        Faults.arm(sinkId, Faults.Point.WRITE, 1_000, a -> {
            proxy.stall();
            stalled.complete(null);
        });
        StreamExecutionEnvironment env = env(1, 60_000);
        ids(env, 1_000_000, 3_000)
                .sinkTo(sink(sinkBuilder(sinkId, table)
                        .networkTimeout(Duration.ofSeconds(100))
                        // Without flow control: its progress query would meet the stall first, and hold the writer
                        // in a read for its 10 s timeout before any write blocked (a cancel there is
                        // CopyBacklogITCase's case).
                        .maxCopyBacklog(0)
                        .rows(id -> new Object[] {id, "row-" + id + PADDING})));
        JobClient job = env.executeAsync("cancel while stalled");
        stalled.get(60, TimeUnit.SECONDS);
        // Rows of 8 KB fill the buffers on the way within moments; wait for the block itself, not for a time.
        awaitWriterBlockedInASocketWrite();

        long t0 = System.nanoTime();
        job.cancel().get(30, TimeUnit.SECONDS);
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(50);
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);

        assertThat(job.getJobStatus().get()).isEqualTo(org.apache.flink.api.common.JobStatus.CANCELED);
        assertThat(seconds).as("seconds from cancel to CANCELED").isLessThan(10);
        proxy.resume();
        // Nothing of the open epoch became visible (no checkpoint completed in this job).
        assertThat(rows()).isZero();
        assertThat(preparedLeft()).isEmpty();
    }

    /**
     * Waits until the writer is blocked in a socket write: its task thread is inside one (JDK 17 and
     * later write through {@code NioSocketImpl}, under TLS too, whose socket is layered over a plain
     * one), and no record reached the writer since the previous look.
     */
    private void awaitWriterBlockedInASocketWrite() throws InterruptedException {
        long deadline = System.nanoTime() + TestJobs.TIMEOUT.toNanos();
        int records = -1;
        while (true) {
            int now = Faults.hits(sinkId, Faults.Point.WRITE);
            if (now == records && writerThreads().values().stream().anyMatch(NetworkFaultsITCase::inASocketWrite)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                StringBuilder stacks = new StringBuilder();
                writerThreads()
                        .forEach((thread, stack) -> stacks.append(thread)
                                .append('\n')
                                .append(Arrays.stream(stack)
                                        .map(f -> "    at " + f)
                                        .collect(Collectors.joining("\n")))
                                .append('\n'));
                throw new AssertionError("the writer did not block in a socket write within " + TestJobs.TIMEOUT
                        + "; records it saw: " + now + "; its threads:\n" + stacks);
            }
            records = now;
            Thread.sleep(200);
        }
    }

    private static Map<Thread, StackTraceElement[]> writerThreads() {
        Map<Thread, StackTraceElement[]> writers = new java.util.HashMap<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().contains("Writer")) {
                writers.put(thread, stack);
            }
        });
        return writers;
    }

    private static boolean inASocketWrite(StackTraceElement[] stack) {
        return Arrays.stream(stack)
                .anyMatch(frame -> frame.getMethodName().equals("implWrite")
                        && frame.getClassName().equals("sun.nio.ch.NioSocketImpl"));
    }

    /**
     * The network stalls as COMMIT PREPARED goes out: the commit gets no answer, the network timeout
     * ends the wait, and the committer retries (and, once its retries are spent, Flink restores it and
     * it commits on restore). Whatever path it takes, the job ends exact once the network is back.
     */
    @Test
    void stalledCommitIsRetriedUntilTheNetworkComesBack() throws Exception {
        Faults.arm(sinkId, Faults.Point.BEFORE_COMMIT, 4, a -> {
            HIT.put(a.sinkId, a.transactionId);
            // When the COMMIT PREPARED goes out, not now: a pool that validates its idle connection first
            // (commits more than 500 ms apart, as on a busy machine) would otherwise meet the stall instead,
            // and the commit would go out once the network is back, on a fresh connection.
            proxy.stallWhenClientSends("COMMIT PREPARED '" + a.transactionId + "'", STALL);
        });
        StreamExecutionEnvironment env = env(2, 200);
        // At least four epochs with records per subtask: the fourth commit comes.
        CheckpointPacedIds.ids(env, 4_000, 500).sinkTo(sink(sinkBuilder(sinkId, table)));
        long t0 = System.nanoTime();
        env.execute("stalled commit");

        String gid = HIT.get(sinkId);
        assertThat(gid).as("transaction hit").isNotNull();
        List<String> history = ProtocolTrace.history(sinkId, gid);
        assertThat(history.get(0)).isEqualTo("PREPARED@0");
        assertThat(history.get(1)).as("the stalled commit").startsWith("COMMIT:RetriableCommitException@");
        assertThat(history)
                .as("committed in the end, once")
                .containsAnyOf(
                        "COMMIT:COMMITTED@0",
                        "COMMIT:COMMITTED@1",
                        "COMMIT:COMMITTED@2",
                        "MARKER:true@0",
                        "MARKER:true@1",
                        "MARKER:true@2");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0))
                .as("seconds the job took")
                .isLessThan(90);
        assertExactlyOnce(4_000);
    }
}
