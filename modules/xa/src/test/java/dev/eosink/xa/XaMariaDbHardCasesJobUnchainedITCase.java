package dev.eosink.xa;

import dev.eosink.testing.hardcases.UnchainedHardCases;
import dev.eosink.testing.hardcases.RunDimension;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases})
 * through XA against a real MariaDB, chaining disabled by the job.
 */
class XaMariaDbHardCasesJobUnchainedITCase extends UnchainedHardCases {

    XaMariaDbHardCasesJobUnchainedITCase() {
        super(new XaMariaDbBackend(), RunDimension.JOB_CHAINING_DISABLED);
    }
}
