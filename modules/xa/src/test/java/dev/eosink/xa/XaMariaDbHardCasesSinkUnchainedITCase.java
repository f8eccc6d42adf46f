package dev.eosink.xa;

import dev.eosink.testing.hardcases.UnchainedHardCases;
import dev.eosink.testing.hardcases.RunDimension;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases})
 * through XA against a real MariaDB, chaining disabled by the sink.
 */
class XaMariaDbHardCasesSinkUnchainedITCase extends UnchainedHardCases {

    XaMariaDbHardCasesSinkUnchainedITCase() {
        super(new XaMariaDbBackend(), RunDimension.SINK_CHAINING_DISABLED);
    }
}
