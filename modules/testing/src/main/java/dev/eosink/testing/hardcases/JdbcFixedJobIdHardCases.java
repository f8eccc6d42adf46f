package dev.eosink.testing.hardcases;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * {@link FixedJobIdHardCases} on a JDBC database, with the JDBC cases where a fixed job id can matter:
 * both restore a savepoint after another run (an orphan of another line of history; markers of the
 * commits at a restore). The other JDBC cases are a single job each.
 */
public abstract class JdbcFixedJobIdHardCases extends FixedJobIdHardCases {

    protected JdbcFixedJobIdHardCases(HardCaseBackend backend) {
        super(backend);
    }

    @Test
    void anOrphanOfAnotherLineOfHistoryIsRolledBackBeforeTheReplayNeedsItsLocks(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        new JdbcCases().anOrphanOfAnotherLineOfHistoryIsRolledBackBeforeTheReplayNeedsItsLocks(client, dir);
    }

    @Test
    void markersOfTheCommitsAtRestoreOutliveTheRetentionUntilACheckpointOfTheRunCompletes(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        new JdbcCases().markersOfTheCommitsAtRestoreOutliveTheRetentionUntilACheckpointOfTheRunCompletes(client, dir);
    }
}
