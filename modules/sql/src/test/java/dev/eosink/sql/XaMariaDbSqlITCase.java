package dev.eosink.sql;

import dev.eosink.testing.MariaDbFixture;
import dev.eosink.xa.XaBranchNames;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code 'connector' = 'eosink-xa'} against a real MariaDB: an append through an injected failure ends
 * with exactly the source's ids and no prepared XA branch of the sink left.
 */
class XaMariaDbSqlITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private final MariaDbFixture db = MariaDbFixture.get();

    /**
     * {@code INSERT INTO ... SELECT ... FROM} a bounded datagen source at parallelism 2, checkpointing
     * every 200 ms, with a failure after 1,000 rows: exactly ids 0..n-1 in the table.
     */
    @Test
    void appendsExactlyOnceThroughAFailure() throws Exception {
        long n = 3_000;
        String table = "sql_xa_append_" + (System.nanoTime() % 100_000);
        String sinkId = table.replace('_', '-');
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, payload VARCHAR(100) NOT NULL) ENGINE=InnoDB");
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", XaDynamicTableSinkFactory.IDENTIFIER);
        options.put("url", db.jdbcUrl());
        options.put("username", MariaDbFixture.SINK_USER);
        options.put("password", MariaDbFixture.SINK_PASSWORD);
        options.put("table-name", table);
        options.put("sink.id", sinkId);
        StreamTableEnvironment tEnv = SqlJobs.tableEnvironment(2);
        SqlJobs.ids(tEnv, "ids", n, 3_000);
        tEnv.executeSql("CREATE TEMPORARY TABLE xa_sink (id BIGINT, payload STRING) " + SqlJobs.with(options));
        tEnv.executeSql("INSERT INTO xa_sink SELECT fail_once(id, '" + table + "', 1000), CONCAT('row-', CAST(id AS STRING)) "
                + "FROM ids").await();

        assertThat(SqlJobs.FailOnce.failed(table)).as("the injected failure happened").isTrue();
        long rows = db.count("SELECT count(*) FROM " + table);
        long distinct = db.count("SELECT count(DISTINCT id) FROM " + table);
        long inRange = db.count("SELECT count(DISTINCT id) FROM " + table + " WHERE id >= 0 AND id < ?", n);
        assertThat(preparedBranches(sinkId)).as("prepared XA branches of %s left", sinkId).isEmpty();
        assertThat(rows - distinct).as("duplicate rows").isZero();
        assertThat(n - inRange).as("missing ids").isZero();
        assertThat(rows).as("rows").isEqualTo(n);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE payload <> CONCAT('row-', id)")).as("payloads").isZero();
    }

    /** The global transaction ids of the sink's prepared branches, as XA RECOVER lists them. */
    private List<String> preparedBranches(String sinkId) {
        String branch = new String(XaBranchNames.branchQualifier(sinkId), StandardCharsets.ISO_8859_1);
        return db.xaRecover().stream()
                .filter(xid -> xid[0].equals(String.valueOf(XaBranchNames.FORMAT_ID)) && xid[2].equals(branch))
                .map(xid -> xid[1])
                .collect(Collectors.toList());
    }
}
