/**
 * What every JDBC sink shares: the options of its builder ({@link dev.eosink.jdbc.JdbcSinkBuilderBase})
 * and the {@link dev.eosink.jdbc.RowMapper} that turns a record into a row. Both are {@code
 * @PublicEvolving}: users reach them through {@code PostgresSink.builder()} and {@code
 * XaSink.builder()}, and a module for another JDBC database may extend the builder base, relying on
 * its protected hooks and on what {@code build()} checks before it calls them.
 */
package dev.eosink.jdbc;
