package dev.eosink.xa;

import dev.eosink.testing.hardcases.UnchainedHardCases;
import dev.eosink.testing.hardcases.RunDimension;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases})
 * through XA against PostgreSQL, chaining disabled by the job.
 */
class XaPostgresHardCasesJobUnchainedITCase extends UnchainedHardCases {

    XaPostgresHardCasesJobUnchainedITCase() {
        super(new XaPostgresBackend(), RunDimension.JOB_CHAINING_DISABLED);
    }
}
