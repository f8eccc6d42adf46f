package dev.eosink.xa.internal;

import dev.eosink.jdbc.sql.Parameters;

import java.math.BigDecimal;
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
 * <p>A statement of many rows must also stay below the server's packet limit ({@link
 * XaDialect#maxStatementBytes}), which the driver cannot cut as it cuts a JDBC batch: the server
 * refuses a larger one and closes the connection, and every replay of the epoch would fail the same
 * way. So a chunk ends early before the row that could take it past the limit, by an upper bound of
 * each row's bytes ({@link #bytesOf}); a row alone past it goes alone, and the database refuses it as
 * it would refuse its insert.
 *
 * <p>The upsert of a full chunk is prepared once per connection, that of a shorter chunk each time.
 * Used by the task thread only; closed with its connection.
 */
final class XaKeyedStatements {

    /** MariaDB's and MySQL's bound on the parameters of one prepared statement. */
    static final int MAX_PARAMETERS = 65_535;

    private final Connection connection;
    private final IntFunction<String> upsertSql;
    private final String deleteSql;
    private final int columns;
    private final int rowsPerStatement;
    /** The bytes of the rows of one statement, at most: the packet limit less the statement's own text. */
    private final long rowBytesPerStatement;
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
     * @param maxStatementBytes the server's bound on a statement ({@link XaDialect#maxStatementBytes})
     */
    XaKeyedStatements(Connection connection, IntFunction<String> upsertSql, String deleteSql, int columns, int batchSize,
            long maxStatementBytes) {
        this.connection = connection;
        this.upsertSql = upsertSql;
        this.deleteSql = deleteSql;
        this.columns = columns;
        this.rowsPerStatement = Math.max(1, Math.min(batchSize, MAX_PARAMETERS / columns));
        // The text of a statement of one row (its placeholders are counted again in the rows' bytes), and
        // room for the protocol's own bytes.
        this.rowBytesPerStatement = maxStatementBytes - upsertSql.apply(1).length() - 1024;
    }

    /** Upserts {@code rows}, in their order, each its whole row. */
    void upsert(List<Object[]> rows, XaIo io) throws SQLException {
        for (int from = 0, to; from < rows.size(); from = to) {
            to = chunkEnd(rows, from);
            List<Object[]> chunk = rows.subList(from, to);
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

    /**
     * Where the statement of the rows from {@code from} ends: after {@link #rowsPerStatement} rows, or
     * before the row that could take it past {@link #rowBytesPerStatement}; never before its first row.
     */
    private int chunkEnd(List<Object[]> rows, int from) {
        int end = Math.min(rows.size(), from + rowsPerStatement);
        long bytes = 0;
        for (int i = from; i < end; i++) {
            bytes += bytesOf(rows.get(i));
            if (bytes > rowBytesPerStatement && i > from) {
                return i;
            }
        }
        return end;
    }

    /**
     * An upper bound of a row's bytes in a statement, by the longest form a driver sends each value in:
     * a string as quoted, escaped UTF-8 text (at most 3 bytes per char, an escaped one 2), bytes as
     * escaped text (at most 2 per byte), a number or date as text, a NULL as {@code NULL}; and the row's
     * commas and parentheses.
     */
    static long bytesOf(Object[] row) {
        long bytes = 2;
        for (Object value : row) {
            bytes += 2;
            if (value instanceof CharSequence s) {
                bytes += 3L * s.length() + 2;
            } else if (value instanceof byte[] b) {
                bytes += 2L * b.length + 10;
            } else if (value instanceof BigDecimal d) {
                bytes += d.precision() + Math.abs((long) d.scale()) + 4;
            } else {
                bytes += 64; // null, a boolean, a number, a date or time: a few dozen characters at most
            }
        }
        return bytes;
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
