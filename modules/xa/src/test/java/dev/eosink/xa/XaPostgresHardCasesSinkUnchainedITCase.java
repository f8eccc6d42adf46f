package dev.eosink.xa;

import dev.eosink.testing.hardcases.JdbcSinkUnchainedHardCases;

/**
 * The hard cases where chaining disabled by the sink can matter ({@link JdbcSinkUnchainedHardCases})
 * through XA against PostgreSQL.
 */
class XaPostgresHardCasesSinkUnchainedITCase extends JdbcSinkUnchainedHardCases {

    XaPostgresHardCasesSinkUnchainedITCase() {
        super(new XaPostgresBackend());
    }
}
