package dev.eosink.postgres;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.faults.CheckpointCounter;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.faults.LogCapture;
import dev.eosink.testing.faults.MaxSampler;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a writer does at start with prepared transactions it finds (hard case 6) and with a second
 * live job under its sink id (hard case 9).
 */
class StartupRecoveryITCase extends ExactlyOnceTestBase {

    /**
     * Hard case 6 under leftoverPolicy(ROLLBACK): a fresh start rolls back its own sink's leftovers of
     * other jobs, loudly, and nothing else.
     */
    @Test
    void freshStartRollsBackOwnLeftoversOnly() throws Exception {
        String own0 = "eos1/" + sinkId + "/0/7/aaaaaaaa";
        String own3 = "eos1/" + sinkId + "/3/2/bbbbbbbb"; // from an earlier run at parallelism 4
        String otherSink = "eos1/" + sinkId + "-other/0/7/cccccccc";
        stagePrepared(own0, 1_000_000, 1_000_100);
        stagePrepared(own3, 2_000_000, 2_000_050);
        stagePrepared(otherSink, 3_000_000, 3_000_010);
        try {
            StreamExecutionEnvironment env = env(2, 200);
            ids(env, 2_000, 4_000).sinkTo(sinkBuilder(sinkId, table).leftoverPolicy(LeftoverPolicy.ROLLBACK).build());
            env.execute("fresh start with leftovers");

            assertThat(db.preparedGids(TransactionId.sinkPrefix(sinkId + "-other"))).containsExactly(otherSink);
            assertExactlyOnce(2_000); // the leftovers' ids (>= 1,000,000) never became visible
        } finally {
            db.rollbackPrepared(TransactionId.sinkPrefix(sinkId + "-other"));
        }
        assertThat(rows()).isEqualTo(2_000);
    }

    /**
     * Hard case 6 with the default leftoverPolicy(FAIL): another job's leftovers may be a completed
     * savepoint's, whose records the sources will not replay; a fresh start refuses to start, names
     * them and the remedies, and fails without restarts (a restart would find the same).
     */
    @Test
    void freshStartWithLeftoversOfAnotherJobRefusesToStart() throws Exception {
        String own = "eos1/" + sinkId + "/0/7/aaaaaaaa";
        stagePrepared(own, 1_000_000, 1_000_100);
        StreamExecutionEnvironment env = env(1, 200); // restarts on: the refusal suppresses them
        ids(env, 100, 1_000).sinkTo(faultySink());

        assertThatThrownBy(() -> env.execute("refuses"))
                .rootCause()
                .hasMessageContaining("sink '" + sinkId + "' subtask 0/1")
                .hasMessageContaining(own)
                .hasMessageContaining("left by other job(s)")
                .hasMessageContaining("restore the job from the checkpoint or savepoint that holds this sink's state")
                .hasMessageContaining("leftoverPolicy(ROLLBACK)");
        assertThat(Faults.writerAttempts(sinkId, 0)).as("no restart").containsExactly(0);
        // Left exactly as found, for the operator to decide; nothing of the job became visible.
        assertThat(preparedLeft()).containsExactly(own);
        assertThat(rows()).isZero();
        db.rollbackPrepared(own);
        assertThat(preparedLeft()).isEmpty();
        assertThat(rows()).isZero();
    }

    /**
     * A failover before the job's first completed checkpoint restarts without state and finds its own
     * earlier attempt's prepared transaction: rolled back (no checkpoint promised it), whatever the
     * leftover policy. Under leftoverPolicy(FAIL) every such restart used to refuse, for ever.
     */
    @Test
    void aFailoverBeforeTheFirstCompletedCheckpointRollsBackItsOwnAttemptUnderFail() throws Exception {
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 1);
        StreamExecutionEnvironment env = env(1, 200);
        ids(env, 2_000, 4_000).sinkTo(FaultInjectingDatabase.wrap(
                sinkBuilder(sinkId, table).leftoverPolicy(LeftoverPolicy.FAIL).build()));
        env.execute("failover before the first checkpoint");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
        assertThat(Faults.writerAttempts(sinkId, 0)).as("one restart").containsExactly(0, 1);
        assertExactlyOnce(2_000);
    }

    /**
     * While one subtask fails at every checkpoint and restarts alone (regional failover), the other
     * keeps preparing one transaction per checkpoint attempt, none of which completes. Each holds a
     * slot of max_prepared_transactions (shared by every application on the server) and its row
     * locks: past maxPreparedPerSubtask the healthy subtask fails over too, which rolls them back,
     * instead of exhausting the server. Then the faults stop and the job ends exact.
     */
    @Test
    void checkpointsThatKeepFailingCannotPileUpPreparedTransactions() throws Exception {
        int bound = 3;
        String ofSubtask1 = TransactionId.sinkPrefix(sinkId) + "1/";
        MaxSampler prepared1;
        try (MaxSampler sampler = new MaxSampler(sinkId, () -> db.preparedGids(ofSubtask1).size())) {
            prepared1 = sampler;
            StreamExecutionEnvironment env = env(2, 100);
            ids(env, 6_000, 1_500).sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(sinkId, table).maxPreparedPerSubtask(bound).build())
                    .withLifecycleHook(Faults.failAfterEachPrepare(sinkId, 0, 10))); // no checkpoint completes meanwhile
            env.execute("checkpoints keep failing on one subtask");
        }
        assertThat(prepared1.samples()).as("samples taken").isPositive();
        assertThat(prepared1.max()).as("most prepared transactions of subtask 1 at once").isBetween(1, bound);
        assertThat(Faults.writerAttempts(sinkId, 1)).as("the healthy subtask failed over at the bound").hasSizeGreaterThan(1);
        assertExactlyOnce(6_000);
    }

    /**
     * Hard case 9: a second live job with the same sink id is refused and cannot harm the first. It
     * says, while it waits for the guard, who holds it.
     */
    @Test
    void secondLiveJobWithTheSameSinkIdIsRefused() throws Exception {
        StreamExecutionEnvironment first = env(1, 200);
        ids(first, 4_000, 1_000).sinkTo(sinkBuilder(sinkId, table).build());
        JobClient running = first.executeAsync("first");
        awaitRows(200, Duration.ofSeconds(60));

        StreamExecutionEnvironment second = env(1, 200, noRestarts());
        ids(second, 100, 1_000).sinkTo(sinkBuilder(sinkId, table).claimWait(Duration.ofSeconds(1)).build());
        LogCapture logs = LogCapture.attach();
        try {
            assertThatThrownBy(() -> second.execute("second"))
                    .rootCause()
                    .hasMessageContaining("another live session holds the ownership guard of sink id '" + sinkId + "'")
                    .hasMessageContaining("eosink/" + sinkId + "/0/writer")
                    .hasMessageContaining("give this sink a different sink id");
        } finally {
            logs.detach();
        }
        assertThat(logs.text()).as("the wait is logged, with the holder")
                .contains("waiting up to")
                .contains("for the ownership guard of sink id '" + sinkId + "' subtask 0 (held by backend pid");

        running.getJobExecutionResult().get();
        assertExactlyOnce(4_000);
    }

    /** Hard case 8: two sinks in one job never collide, even failing at the same moment. */
    @Test
    void twoSinksInOneJobKeepTheirTransactionsApart() throws Exception {
        String otherTable = table + "_b";
        String otherSink = sinkId + "-b";
        db.execute("CREATE TABLE " + otherTable + " (id bigint NOT NULL, payload text NOT NULL)");
        Faults.reset(otherSink);
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        Faults.arm(otherSink, Faults.Point.BEFORE_COMMIT, 2);
        try {
            StreamExecutionEnvironment env = env(2, 150);
            var ids = ids(env, 3_000, 3_000);
            ids.sinkTo(faultySink()).name("sink a");
            ids.sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(otherSink, otherTable).build())).name("sink b");
            env.execute("two sinks");

            assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
            assertThat(Faults.fired(otherSink, Faults.Point.BEFORE_COMMIT)).isEqualTo(1);
            assertExactlyOnce(3_000);
            assertThat(db.count("SELECT count(*) FROM " + otherTable)).isEqualTo(3_000);
            assertThat(db.count("SELECT count(DISTINCT id) FROM " + otherTable)).isEqualTo(3_000);
            assertThat(db.preparedGids(TransactionId.sinkPrefix(otherSink))).isEmpty();
        } finally {
            db.rollbackPrepared(TransactionId.sinkPrefix(otherSink));
            Faults.reset(otherSink);
        }
    }

    /** Hard case 13: an epoch without records prepares nothing and emits no committable. */
    @Test
    void emptyCheckpointsPrepareNothing() throws Exception {
        StreamExecutionEnvironment env = env(1, 50);
        CheckpointCounter.reset(sinkId);
        ids(env, 20, 8).map(new CheckpointCounter<>(sinkId)).sinkTo(faultySink());
        env.execute("mostly empty epochs");

        long prepares = Faults.hits(sinkId, Faults.Point.BEFORE_PREPARE);
        long markers = db.count("SELECT count(*) FROM eosink_markers WHERE sink_id = ?", sinkId);
        assertThat(prepares).isEqualTo(markers).isBetween(1L, 20L);
        assertThat(CheckpointCounter.completed(sinkId)).as("completed checkpoints").isGreaterThan(2L * prepares);
        assertExactlyOnce(20);
    }

    /** A regional failover restarts only the failed subtask; the other keeps its transactions. */
    @Test
    void regionalFailoverRestartsOnlyTheFailedSubtask() throws Exception {
        Faults.arm(sinkId, Faults.Point.WRITE, 1_500);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 2_000).sinkTo(faultySink());
        env.execute("regional failover");

        List<java.util.Set<Integer>> attempts =
                List.of(Faults.writerAttempts(sinkId, 0), Faults.writerAttempts(sinkId, 1));
        assertThat(attempts).as("writer attempts per subtask").containsExactlyInAnyOrder(java.util.Set.of(0), java.util.Set.of(0, 1));
        assertExactlyOnce(4_000);
    }

    static Configuration noRestarts() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return conf;
    }
}
