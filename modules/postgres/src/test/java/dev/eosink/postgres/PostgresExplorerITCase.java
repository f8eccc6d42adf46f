package dev.eosink.postgres;

import dev.eosink.testing.explore.ExplorerSuite;

import java.time.Duration;

/** The explorer ({@link ExplorerSuite}) against PostgreSQL's own two-phase commit. */
class PostgresExplorerITCase extends ExplorerSuite {

    PostgresExplorerITCase() {
        super(new PostgresBackend(), Duration.ofSeconds(90));
    }
}
