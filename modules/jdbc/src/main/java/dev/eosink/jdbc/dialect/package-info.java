/**
 * One dialect per database: what differs between the databases this project's JDBC sinks and its admin tool
 * speak to, found by {@link java.util.ServiceLoader} from the JDBC URL ({@link dev.eosink.jdbc.dialect.JdbcDialects}).
 * A dialect is made of narrow roles (marker SQL, write SQL, error kinds, session locks, lock timeout, XA traits);
 * a database lacking a capability returns an empty {@link java.util.Optional}. Built in: PostgreSQL, MariaDB and
 * MySQL, and a generic dialect for any other database. docs/extending.md says how to add one.
 */
package dev.eosink.jdbc.dialect;
