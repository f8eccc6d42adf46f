package dev.eosink.xa;

import dev.eosink.testing.hardcases.UnchainedHardCases;
import dev.eosink.testing.hardcases.RunDimension;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases})
 * through XA against PostgreSQL, chaining disabled by the sink.
 */
class XaPostgresHardCasesSinkUnchainedITCase extends UnchainedHardCases {

    XaPostgresHardCasesSinkUnchainedITCase() {
        super(new XaPostgresBackend(), RunDimension.SINK_CHAINING_DISABLED);
    }
}
