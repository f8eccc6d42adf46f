package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.spi.RetriableCommitException;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.JobFailures;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lost connections (hard cases 5 and 12): the committer's during COMMIT PREPARED, where the outcome
 * may be unknown, and the writer's in the middle of an epoch, where the open transaction dies with it.
 * Connections are cut for real, with pg_terminate_backend on the sink's sessions (found by their
 * application_name), from an action that runs at the chosen point of the sink's lifecycle.
 */
class ConnectionLossITCase extends ExactlyOnceTestBase {

    /** What the fault's action saw, per sink id. */
    private static final Map<String, String> HIT = new ConcurrentHashMap<>();
    private static final Map<String, Integer> TERMINATED = new ConcurrentHashMap<>();
    private static final Map<String, Long> TRACE_MARK = new ConcurrentHashMap<>();

    @BeforeEach
    void resetTrace() {
        ProtocolTrace.reset(sinkId);
        HIT.remove(sinkId);
        TERMINATED.remove(sinkId);
        TRACE_MARK.remove(sinkId);
    }

    @AfterEach
    void dropTrace() {
        resetTrace();
    }

    private ExactlyOnceSink<Long> sink() {
        return FaultInjectingDatabase.wrap(ProtocolTrace.wrap(sinkBuilder(sinkId, table).build()));
    }

    private String hit() {
        String gid = HIT.get(sinkId);
        assertThat(gid).as("transaction hit by the fault").isNotNull();
        return gid;
    }

    /**
     * Hard case 5, connection lost: right before COMMIT PREPARED, every committer session of the sink
     * is terminated, so the commit goes out on a dead pooled connection and fails. The committer
     * classifies that as "outcome unknown", looks again on a new connection and commits; no task
     * fails, nothing is committed twice.
     *
     * <p>HikariCP hands out an idle connection without validating it only if it was used less than
     * 500 ms before ({@code com.zaxxer.hikari.aliveBypassWindowMs}); after a longer pause it would
     * notice the dead connection itself and the sink would never see the loss. So the fault hits the
     * first commit whose committer used its pool less than 200 ms earlier (its previous commit), which
     * makes the commit run on the dead connection whatever the machine's load.
     */
    @Test
    void commitOnALostConnectionIsRetriedOnANewOne() throws Exception {
        Faults.armWhen(sinkId, Faults.Point.BEFORE_COMMIT,
                a -> {
                    List<ProtocolTrace.Event> commits = ProtocolTrace.events(a.sinkId, ProtocolTrace.Kind.COMMIT).stream()
                            .filter(e -> e.subtask == a.subtask && e.attempt == a.attempt)
                            .collect(Collectors.toList());
                    return !commits.isEmpty()
                            && System.nanoTime() - commits.get(commits.size() - 1).nanos < TimeUnit.MILLISECONDS.toNanos(200);
                },
                a -> {
                    HIT.put(a.sinkId, a.transactionId);
                    TERMINATED.put(a.sinkId, db.terminateBackends("eosink/" + a.sinkId + "/%/committer"));
                });
        StreamExecutionEnvironment env = env(2, 100);
        ids(env, 4_000, 4_000).sinkTo(sink());
        env.execute("committer connection lost");

        assertThat(Faults.fired(sinkId, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
        assertThat(TERMINATED.get(sinkId)).as("committer sessions terminated").isPositive();
        String gid = hit();
        // The first COMMIT PREPARED failed on the dead connection (outcome unknown), the retry on a
        // new connection committed it; all within the committer's first attempt.
        assertThat(ProtocolTrace.history(sinkId, gid))
                .containsExactly("PREPARED@0", "COMMIT:RetriableCommitException@0", "COMMIT:COMMITTED@0");
        assertNoFailover();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 5, outcome unknown: COMMIT PREPARED succeeded but its reply was lost (the action
     * throws what the session throws for a broken connection). The committer looks again, finds the
     * gid gone and its marker present, and counts it committed; no task fails.
     */
    @Test
    void commitWhoseReplyWasLostIsProvedByItsMarker() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_COMMIT, 4, a -> {
            HIT.put(a.sinkId, a.transactionId);
            throw new RetriableCommitException(
                    "injected: COMMIT PREPARED of " + a.transactionId + " succeeded, its reply was lost", null);
        });
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink());
        env.execute("commit reply lost");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_COMMIT)).isEqualTo(1);
        String gid = hit();
        assertThat(ProtocolTrace.history(sinkId, gid))
                .containsExactly("PREPARED@0", "COMMIT:COMMITTED@0", "COMMIT:NOT_FOUND@0", "MARKER:true@0");
        assertNoFailover();
        assertExactlyOnce(4_000);
    }

    /**
     * Hard case 12: the writer's session dies in the middle of an epoch, open transaction and all.
     * The writer must not open a new transaction and carry on (the epoch's rows so far died with the
     * session): its task fails, naming the sink, subtask and epoch, and Flink replays from the last
     * checkpoint.
     */
    @Test
    void writerConnectionLostMidEpochFailsTheTaskAndReplays(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Faults.arm(sinkId, Faults.Point.WRITE, 1_500, a -> {
            // Runs on the writer's own thread: the next statement of its session fails.
            HIT.put(a.sinkId, String.valueOf(a.subtask));
            TERMINATED.put(a.sinkId, db.terminateBackends("eosink/" + a.sinkId + "/" + a.subtask + "/writer"));
            TRACE_MARK.put(a.sinkId, ProtocolTrace.events(a.sinkId).stream().mapToLong(e -> e.seq).max().orElse(0));
        });
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(sink());
        JobClient job = env.executeAsync("writer connection lost");
        job.getJobExecutionResult().get();

        assertThat(Faults.fired(sinkId, Faults.Point.WRITE)).isEqualTo(1);
        assertThat(TERMINATED.get(sinkId)).as("writer sessions terminated").isEqualTo(1);
        int subtask = Integer.parseInt(HIT.get(sinkId));
        int other = 1 - subtask;

        // Never carried on: after its session died, attempt 0 of that writer prepared nothing more.
        long mark = TRACE_MARK.get(sinkId);
        List<String> preparedAfter = ProtocolTrace.events(sinkId, ProtocolTrace.Kind.PREPARED).stream()
                .filter(e -> e.subtask == subtask && e.attempt == 0 && e.seq > mark)
                .map(Object::toString)
                .collect(Collectors.toList());
        assertThat(preparedAfter).as("transactions prepared by the writer after its session died").isEmpty();
        // Its task failed and restarted (alone: the other subtask kept running).
        assertThat(Faults.writerAttempts(sinkId, subtask)).containsExactly(0, 1);
        assertThat(Faults.writerAttempts(sinkId, other)).containsExactly(0);

        List<String> failures = JobFailures.of(cluster, job.getJobID());
        assertThat(failures).as("failures in the job's exception history").hasSize(1);
        assertThat(failures.get(0))
                .contains("sink '" + sinkId + "' subtask " + subtask + "/2 (attempt 0)")
                .contains("epoch of checkpoint")
                .contains("connection of the open transaction was lost");
        assertExactlyOnce(4_000);
    }

    /** No task of the job failed: every writer ran in attempt 0 only, and every commit was by attempt 0. */
    private void assertNoFailover() {
        assertThat(Faults.writerAttempts(sinkId, 0)).containsExactly(0);
        assertThat(Faults.writerAttempts(sinkId, 1)).containsExactly(0);
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.COMMIT)).allSatisfy(e -> assertThat(e.attempt).isZero());
        assertThat(ProtocolTrace.events(sinkId, ProtocolTrace.Kind.ROLLED_BACK)).isEmpty();
    }
}
