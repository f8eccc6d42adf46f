/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import dev.eosink.jdbc.RowMapper;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a sink writes for each record, in one of two forms: {@link Columns}, a table and its columns
 * with a {@link RowMapper}, whose SQL each sink generates for its database (and may write by other
 * means than an INSERT, such as COPY); or {@link UserSql}, the user's own statement with
 * flink-connector-jdbc's {@link JdbcStatementBuilder}. A caller that needs more than {@link #bind}
 * and {@link #describe} tells the two apart by type: there is no third.
 */
@PublicEvolving
public sealed interface InsertStatement<IN> extends Serializable
        permits InsertStatement.Columns, InsertStatement.UserSql {

    /** Binds the record to the statement's parameters, in the form's own way. */
    void bind(PreparedStatement statement, IN record) throws Exception;

    /** For messages: the table, or the SQL when the user gave it. Never credentials. */
    String describe();

    /**
     * The record as error messages and the dead-letter table show it: the row mapper's {@link
     * RowMapper#shown} for {@link Columns}, the record itself for {@link UserSql}.
     */
    default Object shown(IN record) {
        return record;
    }

    /**
     * Rows of {@code columns} of {@code table}, one value per column from {@code mapper}. Throws {@link
     * NullPointerException} for a null table, columns or mapper.
     */
    static <IN> Columns<IN> forColumns(SqlIdentifier table, List<String> columns, RowMapper<IN> mapper) {
        return new Columns<>(table, columns, mapper);
    }

    /**
     * The user's statement {@code sql}, its parameters bound by {@code builder} (flink-connector-jdbc's interface).
     * Throws {@link NullPointerException} for a null argument.
     */
    static <IN> UserSql<IN> forSql(String sql, JdbcStatementBuilder<IN> builder) {
        return new UserSql<>(sql, builder);
    }

    /** A table and columns: a row mapper turns each record into one value per column, in their order. */
    final class Columns<IN> implements InsertStatement<IN> {
        private static final long serialVersionUID = 1L;
        private final SqlIdentifier table;
        private final List<String> columns;
        private final RowMapper<IN> mapper;

        private Columns(SqlIdentifier table, List<String> columns, RowMapper<IN> mapper) {
            this.table = Objects.requireNonNull(table, "table");
            this.columns = List.copyOf(columns);
            this.mapper = Objects.requireNonNull(mapper, "mapper");
        }

        /** The table the rows go to: its schema (null: the connection's default) and name. */
        public SqlIdentifier table() {
            return table;
        }

        /** The columns, in the order of the row mapper's values. */
        public List<String> columns() {
            return columns;
        }

        /**
         * {@code INSERT INTO "table" ("a", "b") VALUES (p1, p2)}, identifiers quoted as {@link
         * SqlIdentifier} quotes them, with one parameter expression per column, in order: {@code ?}, or
         * {@code ?::jsonb} where the database needs a cast.
         */
        public String sql(List<String> parameters) {
            if (parameters.size() != columns.size()) {
                throw new IllegalArgumentException(
                        parameters.size() + " parameters for " + columns.size() + " columns " + columns);
            }
            return "INSERT INTO "
                    + table.sql()
                    + " ("
                    + columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                    + ") VALUES ("
                    + String.join(", ", parameters)
                    + ")";
        }

        /** The record's row, checked to have one value per column. */
        public Object[] toRow(IN record) throws Exception {
            Object[] row = mapper.toRow(record);
            if (row == null || row.length != columns.size()) {
                throw new IllegalArgumentException("the row mapper returned "
                        + (row == null ? "null" : row.length + " values")
                        + " for "
                        + columns.size()
                        + " columns "
                        + columns);
            }
            return row;
        }

        /** The row's values by position, as {@code setObject} binds them (see {@link Parameters}). */
        @Override
        public void bind(PreparedStatement statement, IN record) throws Exception {
            Parameters.bindRow(statement, toRow(record));
        }

        @Override
        public String describe() {
            return "table " + table.sql();
        }

        @Override
        public Object shown(IN record) {
            return mapper.shown(record);
        }
    }

    /** The user's statement and binder, as flink-connector-jdbc's {@code JdbcSink} takes them. */
    final class UserSql<IN> implements InsertStatement<IN> {
        private static final long serialVersionUID = 1L;
        private final String sql;
        private final JdbcStatementBuilder<IN> builder;

        private UserSql(String sql, JdbcStatementBuilder<IN> builder) {
            this.sql = Objects.requireNonNull(sql, "sql");
            this.builder = Objects.requireNonNull(builder, "builder");
        }

        /** The statement as the user gave it. */
        public String sql() {
            return sql;
        }

        @Override
        public void bind(PreparedStatement statement, IN record) throws SQLException {
            builder.accept(statement, record);
        }

        /** The statement on one line, cut at 120 characters. */
        @Override
        public String describe() {
            String oneLine = sql.replaceAll("\\s+", " ").trim();
            return "statement '" + (oneLine.length() > 120 ? oneLine.substring(0, 117) + "..." : oneLine) + "'";
        }
    }
}
