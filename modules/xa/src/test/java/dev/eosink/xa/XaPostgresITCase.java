package dev.eosink.xa;

/** The XA hard-case suite against PostgreSQL through pgjdbc's PGXADataSource. */
class XaPostgresITCase extends XaHardCases {

    @Override
    XaBackend backend() {
        return new XaBackend.Postgres();
    }
}
