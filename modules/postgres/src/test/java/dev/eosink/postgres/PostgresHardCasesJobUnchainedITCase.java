package dev.eosink.postgres;

import dev.eosink.testing.hardcases.UnchainedHardCases;
import dev.eosink.testing.hardcases.RunDimension;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases})
 * against PostgreSQL's own two-phase commit, chaining disabled by the job.
 */
class PostgresHardCasesJobUnchainedITCase extends UnchainedHardCases {

    PostgresHardCasesJobUnchainedITCase() {
        super(new PostgresBackend(), RunDimension.JOB_CHAINING_DISABLED);
    }
}
