package dev.eosink.postgres;

import dev.eosink.testing.hardcases.UnchainedHardCases;
import dev.eosink.testing.hardcases.RunDimension;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases})
 * against PostgreSQL's own two-phase commit, chaining disabled by the sink.
 */
class PostgresHardCasesSinkUnchainedITCase extends UnchainedHardCases {

    PostgresHardCasesSinkUnchainedITCase() {
        super(new PostgresBackend(), RunDimension.SINK_CHAINING_DISABLED);
    }
}
