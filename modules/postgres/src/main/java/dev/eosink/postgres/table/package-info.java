/**
 * Flink's {@code RowData} into PostgreSQL: {@link dev.eosink.postgres.table.PostgresRowDataSink} is
 * the entry ({@code @PublicEvolving}), for the Table API's sink factories and for DataStreams of
 * RowData; the rest of the package is its machinery, package-private: the type mapping (which Flink
 * type goes into which PostgreSQL column type, docs/types.md) and each pair's encoder into binary
 * COPY, statement parameters and text. Needs {@code flink-table-common}, which this module does not
 * bring ({@code provided}): nothing here is loaded unless a job uses it.
 */
package dev.eosink.postgres.table;
