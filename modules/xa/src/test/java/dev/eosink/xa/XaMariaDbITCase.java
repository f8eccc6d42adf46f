package dev.eosink.xa;

/** The XA hard-case suite against a real MariaDB (its own mariadbd, or EOSINK_TEST_MARIADB_URL). */
class XaMariaDbITCase extends XaHardCases {

    @Override
    XaBackend backend() {
        return new XaBackend.MariaDb();
    }
}
