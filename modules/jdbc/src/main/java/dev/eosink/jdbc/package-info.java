/**
 * What every JDBC sink shares: the options of its builder ({@link dev.eosink.jdbc.JdbcSinkBuilderBase}),
 * the immutable value it makes of them ({@link dev.eosink.jdbc.JdbcSinkOptions}, with its {@link
 * dev.eosink.jdbc.WriteMode} and {@link dev.eosink.jdbc.RefusedRecords}) and the {@link
 * dev.eosink.jdbc.RowMapper} that turns a record into a row. All are {@code @PublicEvolving}: users
 * reach them through {@code PostgresSink.builder()} and {@code XaSink.builder()}, and a module for
 * another JDBC database may extend the builder base, relying on its protected hooks, on what {@code
 * build()} checks before it calls them, and on the options it hands them.
 */
package dev.eosink.jdbc;
