package dev.eosink.postgres;

import dev.eosink.testing.hardcases.HardCases;

/** The protocol's hard cases ({@link HardCases}) against PostgreSQL's own two-phase commit. */
class PostgresHardCasesITCase extends HardCases {

    PostgresHardCasesITCase() {
        super(new PostgresBackend());
    }
}
