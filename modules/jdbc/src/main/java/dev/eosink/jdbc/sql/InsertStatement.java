package dev.eosink.jdbc.sql;

import dev.eosink.jdbc.RowMapper;

import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the batch writer executes for each record: the SQL and how to bind a record to it. Either
 * generated from a table and columns (identifiers quoted) with a {@link RowMapper}, or given by the
 * user with flink-connector-jdbc's {@link JdbcStatementBuilder}.
 */
public abstract class InsertStatement<IN> implements Serializable {

    private static final long serialVersionUID = 1L;

    public abstract String sql();

    public abstract void bind(PreparedStatement statement, IN record) throws Exception;

    /** The table written, when known (generated statements); null for user SQL. */
    public abstract SqlIdentifier table();

    /** For messages: the table, or the SQL when the user gave it. */
    public abstract String describe();

    public static <IN> InsertStatement<IN> forColumns(
            SqlIdentifier table, List<String> columns, RowMapper<IN> mapper) {
        return new Columns<>(table, columns, mapper);
    }

    public static <IN> InsertStatement<IN> forSql(String sql, JdbcStatementBuilder<IN> builder) {
        return new UserSql<>(sql, builder);
    }

    private static final class Columns<IN> extends InsertStatement<IN> {
        private static final long serialVersionUID = 1L;
        private final SqlIdentifier table;
        private final List<String> columns;
        private final RowMapper<IN> mapper;
        private final String sql;

        Columns(SqlIdentifier table, List<String> columns, RowMapper<IN> mapper) {
            this.table = table;
            this.columns = List.copyOf(columns);
            this.mapper = mapper;
            this.sql =
                    "INSERT INTO "
                            + table.sql()
                            + " ("
                            + columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                            + ") VALUES ("
                            + columns.stream().map(c -> "?").collect(Collectors.joining(", "))
                            + ")";
        }

        @Override
        public String sql() {
            return sql;
        }

        @Override
        public Object[] toRow(IN record) throws Exception {
            Object[] row = mapper.toRow(record);
            if (row == null || row.length != columns.size()) {
                throw new IllegalArgumentException(
                        "the row mapper returned "
                                + (row == null ? "null" : row.length + " values")
                                + " for "
                                + columns.size()
                                + " columns "
                                + columns);
            }
            return row;
        }

        @Override
        public void bind(PreparedStatement statement, IN record) throws Exception {
            Object[] row = toRow(record);
            for (int i = 0; i < row.length; i++) {
                statement.setObject(i + 1, row[i]);
            }
        }

        @Override
        public SqlIdentifier table() {
            return table;
        }

        public List<String> columns() {
            return columns;
        }

        @Override
        public String describe() {
            return "table " + table.sql();
        }
    }

    private static final class UserSql<IN> extends InsertStatement<IN> {
        private static final long serialVersionUID = 1L;
        private final String sql;
        private final JdbcStatementBuilder<IN> builder;

        UserSql(String sql, JdbcStatementBuilder<IN> builder) {
            this.sql = sql;
            this.builder = builder;
        }

        @Override
        public String sql() {
            return sql;
        }

        @Override
        public void bind(PreparedStatement statement, IN record) throws SQLException {
            builder.accept(statement, record);
        }

        @Override
        public SqlIdentifier table() {
            return null;
        }

        @Override
        public String describe() {
            String oneLine = sql.replaceAll("\\s+", " ").trim();
            return "statement '" + (oneLine.length() > 120 ? oneLine.substring(0, 117) + "..." : oneLine) + "'";
        }
    }

    /**
     * The generated INSERT with each parameter cast to its column's type ({@code ?::jsonb}): the driver
     * binds Java strings as varchar, which PostgreSQL will not assign to json, uuid and other columns
     * without a cast. User SQL is returned as given.
     */
    public String sqlWithCasts(List<String> columnTypes) {
        if (table() == null) {
            return sql();
        }
        return "INSERT INTO "
                + table().sql()
                + " ("
                + columnsOrEmpty().stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                + ") VALUES ("
                + columnTypes.stream().map(t -> "?::" + t).collect(Collectors.joining(", "))
                + ")";
    }

    /** The row of a generated statement's columns; only for {@link #forColumns} statements. */
    public Object[] toRow(IN record) throws Exception {
        throw new UnsupportedOperationException("user SQL has no row mapper");
    }

    /** The column list of a generated statement, for validation; empty for user SQL. */
    public List<String> columnsOrEmpty() {
        return this instanceof Columns ? ((Columns<IN>) this).columns() : List.of();
    }
}
