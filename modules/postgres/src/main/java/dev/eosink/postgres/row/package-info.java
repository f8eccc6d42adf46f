/**
 * The seam between what a table-mode sink's records are and the paths that write them (binary COPY,
 * JDBC batches, array-bound upserts and deletes): a {@link dev.eosink.postgres.row.RowFormat} turns a
 * record into its row, and at writer start, given the table's columns ({@link
 * dev.eosink.postgres.row.TargetColumn}), makes the session's {@link
 * dev.eosink.postgres.row.RowEncoder}, which writes a row's values in each of the three forms. Its two
 * implementations: the rows of a {@code RowMapper} (the builder's {@code rows(...)}, an
 * {@code Object[]} per record), and Flink's {@code RowData}, read field by field ({@code
 * dev.eosink.postgres.table}).
 *
 * <p>{@code @Internal}: public for those packages of this module, with no promise to anyone else.
 */
package dev.eosink.postgres.row;
