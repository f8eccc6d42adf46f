package dev.eosink.xa;

import dev.eosink.testing.hardcases.JobUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the job can matter ({@link JobUnchainedHardCases})
 * through XA against a real MariaDB.
 */
class XaMariaDbHardCasesJobUnchainedITCase extends JobUnchainedHardCases {

    XaMariaDbHardCasesJobUnchainedITCase() {
        super(new XaMariaDbBackend());
    }
}
