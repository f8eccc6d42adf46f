/**
 * What a JDBC sink writes. {@link dev.eosink.jdbc.sql.InsertStatement} and {@link
 * dev.eosink.jdbc.sql.SqlIdentifier} are {@code @PublicEvolving}: a concrete builder receives them from
 * {@link dev.eosink.jdbc.JdbcSinkBuilderBase}. The marker table's SQL and the rendering of records in
 * messages are {@code @Internal}, shared by this project's sinks.
 */
package dev.eosink.jdbc.sql;
