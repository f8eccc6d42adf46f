package dev.eosink.xa;

import dev.eosink.testing.MariaDbFixture;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;

import static dev.eosink.testing.hardcases.TestJobs.env;
import static dev.eosink.testing.hardcases.TestJobs.failureOf;
import static dev.eosink.testing.hardcases.TestJobs.ids;
import static dev.eosink.testing.hardcases.TestJobs.messages;
import static dev.eosink.testing.hardcases.TestJobs.noRestarts;
import static org.assertj.core.api.Assertions.assertThat;

/** The XA sink's own tests against a real MariaDB (its own mariadbd, or EOSINK_TEST_MARIADB_URL). */
class XaMariaDbITCase extends XaDialectCases {

    @Override
    XaBackend backend() {
        return new XaMariaDbBackend();
    }

    /** Where the server checks passwords: a wrong one is refused at start, and never shown. */
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
        assertThat(messages(failureOf(() -> env.execute("wrong password"))))
                .contains("sink '" + sinkId + "' subtask 0/1")
                .contains("could not connect")
                .contains("Remedy")
                .doesNotContain(wrong);
    }
}
