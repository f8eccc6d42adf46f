package dev.eosink.postgres;

import dev.eosink.testing.faults.Faults;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The straight path and the simplest failures, at parallelism 1 and 2. */
class BasicExactlyOnceITCase extends ExactlyOnceTestBase {

    /** Hard case 11: a bounded job's last records are committed by its final checkpoint. */
    @Test
    void boundedJobCommitsEverythingAtTheEnd() throws Exception {
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 5_000, 5_000).sinkTo(sinkBuilder(sinkId, table).build());
        env.execute("bounded");
        assertExactlyOnce(5_000);
    }

    /** An exception in the middle of an epoch: the open transaction dies, the epoch is replayed. */
    @Test
    void failureMidEpochIsReplayedOnce() throws Exception {
        Faults.arm(sinkId, Faults.Point.WRITE, 1_500);
        StreamExecutionEnvironment env = env(2, 200);
        ids(env, 4_000, 4_000).sinkTo(faultySink());
        env.execute("mid-epoch failure");
        assertThat(Faults.fired(sinkId, Faults.Point.WRITE)).isEqualTo(1);
        assertExactlyOnce(4_000);
    }
}
