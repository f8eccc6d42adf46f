package dev.eosink.xa;

import dev.eosink.testing.MariaDbFixture;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The XA hard-case suite against a real MariaDB (its own mariadbd, or EOSINK_TEST_MARIADB_URL). */
class XaMariaDbITCase extends XaHardCases {

    @Override
    XaBackend backend() {
        return new XaBackend.MariaDb();
    }

    /**
     * Hard cases 1, 3 and 12 at once: mariadbd is killed (kill -9) right after a writer prepared, and
     * restarted. Every session dies, the prepared branches survive the crash (checked right after the
     * restart), every writer fails over (its guard connection is gone), and each surviving branch is
     * committed or rolled back as its checkpoint decides; the replay writes the rest once.
     */
    @Test
    void serverCrashRightAfterPrepareLosesNothingAndDuplicatesNothing() throws Exception {
        MariaDbFixture own = MariaDbFixture.startNew();
        XaBackend crashy = new XaBackend.MariaDb(own);
        crashy.createTable(table);
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3, a -> {
            List<String> before = crashy.preparedGtrids(sinkId);
            own.crash();
            own.restart();
            assertThat(crashy.preparedGtrids(sinkId)).as("prepared branches after the crash").containsAll(before);
        });
        Throwable primary = null;
        try {
            StreamExecutionEnvironment env = env(2, 200);
            ids(env, 4_000, 3_000).sinkTo(FaultInjectingDatabase.wrap(crashy.connect(XaSink.<Long>builder())
                    .sinkId(sinkId)
                    .table(table)
                    .columns("id", "payload")
                    .rows(id -> new Object[] {id, "row-" + id})
                    .batchSize(100)
                    .claimWait(java.time.Duration.ofSeconds(20))
                    .commitRetryBackoff(java.time.Duration.ofMillis(50))
                    .build()));
            env.execute("mariadbd killed after prepare");
            assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE)).isEqualTo(1);
            assertExactlyOnce(crashy, 4_000);
        } catch (Throwable t) {
            primary = t;
            throw t;
        } finally {
            try {
                crashy.rollbackPrepared(sinkId);
            } catch (RuntimeException cleanup) {
                if (primary == null) {
                    throw cleanup;
                }
                primary.addSuppressed(cleanup); // a server that did not come back fails both: show why first
            }
        }
    }

    /** Hard case 15 where passwords are checked: a wrong one is refused at start, and never shown. */
    @Test
    void wrongPasswordIsRefusedAtStartWithoutShowingIt() {
        String wrong = "wrong-pw-" + System.nanoTime();
        StreamExecutionEnvironment env = env(1, 200, noRestarts());
        ids(env, 10, 1_000).sinkTo(XaSink.<Long>builder()
                .jdbcUrl(MariaDbFixture.get().jdbcUrl())
                .username(MariaDbFixture.SINK_USER)
                .password(wrong)
                .sinkId(sinkId)
                .table(table)
                .columns("id", "payload")
                .rows(id -> new Object[] {id, "x"})
                .build());
        Throwable failure = null;
        try {
            env.execute("wrong password");
        } catch (Exception e) {
            failure = e;
        }
        assertThat(failure).isNotNull();
        assertThat(messages(failure))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("could not connect")
                .contains("Remedy")
                .doesNotContain(wrong);
    }
}
