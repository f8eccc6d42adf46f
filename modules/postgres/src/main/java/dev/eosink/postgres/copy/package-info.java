/**
 * PostgreSQL's binary COPY format, apart from the sink's protocol. {@code @Internal}: public for this
 * project's benchmarks, whose raw-COPY peer is checked against it byte for byte, and for the row
 * encoders of other packages of this module ({@code dev.eosink.postgres.row}, {@code
 * dev.eosink.postgres.table}), which write their fields into its {@code Buffer}; no promise to anyone
 * else, it may change in any release.
 */
package dev.eosink.postgres.copy;
