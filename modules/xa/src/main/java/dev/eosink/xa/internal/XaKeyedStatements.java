package dev.eosink.xa.internal;

import dev.eosink.jdbc.sql.Parameters;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The upserts and deletes by key of an upsert writer on one connection, as statements of many rows
 * each ({@link XaDialect#upsertSql(String, String, List, List, int)}, {@link XaDialect#deleteSql}):
 * Connector/J sends a JDBC batch of either one statement per row (its bulk protocol takes {@code
 * ON DUPLICATE KEY UPDATE} only where the server reports each row's result, MariaDB 11.5+, and a
 * DELETE only with {@code useBulkStmts}), which ran upserts at a tenth of the speed of inserts. The
 * statement of a full chunk is prepared once per connection, that of a shorter last chunk each time.
 *
 * <p>Used by the task thread only; closed with its connection.
 */
final class XaKeyedStatements {

    /** MariaDB's and MySQL's bound on the parameters of one prepared statement. */
    static final int MAX_PARAMETERS = 65_535;

    private final Rows upserts;
    private final Rows deletes;

    /**
     * @param upsertSql the upsert of n rows
     * @param deleteSql the delete of n keys
     * @param columns the columns of a row
     * @param keyColumns the columns of a key
     * @param batchSize the rows of one statement, at most (fewer where the parameters would exceed
     *     {@link #MAX_PARAMETERS})
     */
    XaKeyedStatements(Connection connection, IntFunction<String> upsertSql, IntFunction<String> deleteSql, int columns,
            int keyColumns, int batchSize) {
        this.upserts = new Rows(connection, upsertSql, columns, batchSize, "upsert");
        this.deletes = new Rows(connection, deleteSql, keyColumns, batchSize, "delete");
    }

    /** Upserts {@code rows}, in their order, each its whole row. */
    void upsert(List<Object[]> rows, XaIo io) throws SQLException {
        upserts.send(rows, io);
    }

    /** Deletes the rows of {@code keys}, each the key columns' values in the key's order. */
    void delete(List<Object[]> keys, XaIo io) throws SQLException {
        deletes.send(keys, io);
    }

    /** One statement of many rows, in chunks. */
    private static final class Rows {
        private final Connection connection;
        private final IntFunction<String> sql;
        private final int width;
        private final int rowsPerStatement;
        private final String what;
        /** Prepared at the first full chunk. */
        private PreparedStatement full;

        Rows(Connection connection, IntFunction<String> sql, int width, int batchSize, String what) {
            this.connection = connection;
            this.sql = sql;
            this.width = width;
            this.rowsPerStatement = Math.max(1, Math.min(batchSize, MAX_PARAMETERS / width));
            this.what = what;
        }

        void send(List<Object[]> rows, XaIo io) throws SQLException {
            for (int from = 0; from < rows.size(); from += rowsPerStatement) {
                List<Object[]> chunk = rows.subList(from, Math.min(rows.size(), from + rowsPerStatement));
                if (chunk.size() == rowsPerStatement) {
                    if (full == null) {
                        full = connection.prepareStatement(sql.apply(rowsPerStatement));
                    }
                    send(full, chunk, io);
                } else {
                    try (PreparedStatement s = connection.prepareStatement(sql.apply(chunk.size()))) {
                        send(s, chunk, io);
                    }
                }
            }
        }

        private void send(PreparedStatement s, List<Object[]> chunk, XaIo io) throws SQLException {
            int parameter = 1;
            for (Object[] row : chunk) {
                for (int i = 0; i < width; i++) {
                    Parameters.set(s, parameter++, row[i]);
                }
            }
            io.sql("sending an " + what + " of " + chunk.size() + " rows", s::executeUpdate);
        }
    }
}
