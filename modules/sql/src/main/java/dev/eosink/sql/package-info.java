/**
 * The Table API / SQL connector of the exactly-once sinks: the table factories of {@code 'connector' =
 * 'eosink-postgres'} ({@link dev.eosink.sql.PostgresDynamicTableSinkFactory}) and {@code 'eosink-xa'}
 * ({@link dev.eosink.sql.XaDynamicTableSinkFactory}), found by Flink through {@code
 * META-INF/services/org.apache.flink.table.factories.Factory}, and their options ({@link
 * dev.eosink.sql.JdbcTableOptions}, {@link dev.eosink.sql.PostgresTableOptions}, {@link
 * dev.eosink.sql.XaTableOptions}). These are {@code @PublicEvolving}; the rest is in {@code
 * dev.eosink.sql.internal}, which no other module imports.
 */
package dev.eosink.sql;
