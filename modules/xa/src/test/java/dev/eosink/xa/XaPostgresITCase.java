package dev.eosink.xa;

/** The XA sink's own tests against PostgreSQL through pgjdbc's PGXADataSource. */
class XaPostgresITCase extends XaDialectCases {

    @Override
    XaBackend backend() {
        return new XaPostgresBackend();
    }
}
