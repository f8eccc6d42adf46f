package dev.eosink.xa.internal;

import dev.eosink.jdbc.sql.Parameters;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The upserts and deletes by key of an upsert writer on one connection: upserts as statements of many
 * rows each ({@link XaDialect#upsertSql(String, String, List, List, int)}), deletes as a JDBC batch of
 * the delete of one key ({@link XaDialect#deleteSql}).
 *
 * <p>Why statements of many rows for upserts: Connector/J 3.5 sends a JDBC batch of {@code INSERT ...
 * ON DUPLICATE KEY UPDATE} by its bulk protocol only to a server that reports each row's result
 * (MariaDB 11.5+), otherwise one statement per row, which ran upserts at a tenth of the speed of
 * inserts. Each row of such a statement is an insert or an update by its own key, as one statement of
 * one row would be. Deletes stay one key per statement: see {@link XaDialect#deleteSql}.
 *
 * <p>The upsert of a full chunk is prepared once per connection, that of a shorter last chunk each
 * time. Used by the task thread only; closed with its connection.
 */
final class XaKeyedStatements {

    /** MariaDB's and MySQL's bound on the parameters of one prepared statement. */
    static final int MAX_PARAMETERS = 65_535;

    private final Connection connection;
    private final IntFunction<String> upsertSql;
    private final String deleteSql;
    private final int columns;
    private final int rowsPerStatement;
    /** Prepared at the first full chunk. */
    private PreparedStatement fullUpsert;
    /** Prepared at the first delete. */
    private PreparedStatement delete;

    /**
     * @param upsertSql the upsert of n rows
     * @param deleteSql the delete of one key
     * @param columns the columns of a row
     * @param batchSize the rows of one upsert statement, at most (fewer where the parameters would
     *     exceed {@link #MAX_PARAMETERS})
     */
    XaKeyedStatements(Connection connection, IntFunction<String> upsertSql, String deleteSql, int columns, int batchSize) {
        this.connection = connection;
        this.upsertSql = upsertSql;
        this.deleteSql = deleteSql;
        this.columns = columns;
        this.rowsPerStatement = Math.max(1, Math.min(batchSize, MAX_PARAMETERS / columns));
    }

    /** Upserts {@code rows}, in their order, each its whole row. */
    void upsert(List<Object[]> rows, XaIo io) throws SQLException {
        for (int from = 0; from < rows.size(); from += rowsPerStatement) {
            List<Object[]> chunk = rows.subList(from, Math.min(rows.size(), from + rowsPerStatement));
            if (chunk.size() == rowsPerStatement) {
                if (fullUpsert == null) {
                    fullUpsert = connection.prepareStatement(upsertSql.apply(rowsPerStatement));
                }
                send(fullUpsert, chunk, io);
            } else {
                try (PreparedStatement s = connection.prepareStatement(upsertSql.apply(chunk.size()))) {
                    send(s, chunk, io);
                }
            }
        }
    }

    private void send(PreparedStatement s, List<Object[]> chunk, XaIo io) throws SQLException {
        int parameter = 1;
        for (Object[] row : chunk) {
            for (int i = 0; i < columns; i++) {
                Parameters.set(s, parameter++, row[i]);
            }
        }
        io.sql("sending an upsert of " + chunk.size() + " rows", s::executeUpdate);
    }

    /** Deletes the rows of {@code keys}, each the key columns' values in the key's order, as one batch. */
    void delete(List<Object[]> keys, XaIo io) throws SQLException {
        if (delete == null) {
            delete = connection.prepareStatement(deleteSql);
        }
        for (Object[] key : keys) {
            Parameters.bindRow(delete, key);
            delete.addBatch();
        }
        io.sql("sending a batch of " + keys.size() + " deletes", delete::executeBatch);
    }
}
