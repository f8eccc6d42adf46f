/**
 * The PostgreSQL sink's machinery: the database of the protocol ({@code PostgresDatabase}), its writer
 * and committer sessions, connections and the committer's pool, COPY, upserts and the error table.
 * {@code @Internal} throughout: the few public types are public for the builder in {@code
 * dev.eosink.postgres} and this module's tests, and no other module imports this package (the
 * architecture test checks it).
 */
package dev.eosink.postgres.internal;
