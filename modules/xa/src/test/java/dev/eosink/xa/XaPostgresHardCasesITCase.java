package dev.eosink.xa;

import dev.eosink.testing.hardcases.HardCases;

/** The protocol's hard cases ({@link HardCases}) through XA against PostgreSQL (pgjdbc's PGXADataSource). */
class XaPostgresHardCasesITCase extends HardCases {

    XaPostgresHardCasesITCase() {
        super(new XaPostgresBackend());
    }
}
