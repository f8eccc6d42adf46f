/**
 * PostgreSQL's binary COPY format, apart from the sink's protocol. {@code @Internal}: public for this
 * project's benchmarks, whose raw-COPY peer is checked against it byte for byte, with no promise to
 * anyone else; it may change in any release.
 */
package dev.eosink.postgres.copy;
