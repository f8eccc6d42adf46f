/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import dev.eosink.jdbc.route.RoutedTables;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

import java.util.List;
import java.util.Optional;

/**
 * What to write as a builder's setters give it, one setting at a time: table mode ({@link
 * JdbcSinkBuilderBase#table}, {@link JdbcSinkBuilderBase#columns}, {@link JdbcSinkBuilderBase#rows}) or
 * the user's statement ({@link JdbcSinkBuilderBase#sql}). {@link #choiceProblem} and {@link
 * #tableProblem} check the rules between them, and {@link #toStatement} makes the {@link InsertStatement}
 * of a set that passed. A setting not given is null here, and only here.
 *
 * @param <IN> the records the sink writes
 */
final class StatementSettings<IN> {

    SqlIdentifier table;
    List<String> columns;
    RowMapper<IN> rowMapper;
    String sql;
    JdbcStatementBuilder<IN> statementBuilder;
    /** Many tables, by a route: the third choice, which only some sinks offer. */
    RoutedTables<IN> routes;

    /** Whether a setting of table mode was given: then {@code sql(...)} must not be. */
    boolean tableMode() {
        return table != null || columns != null || rowMapper != null;
    }

    /** What breaks the rule of exactly one of table mode and {@code sql(...)}; empty when nothing does. */
    Optional<String> choiceProblem() {
        if (routes != null) {
            return tableMode() || sql != null
                    ? Optional.of("tables(...) routes records to the tables it declares: give no table(...), "
                            + "columns(...), rows(...) or sql(...) with it")
                    : Optional.empty();
        }
        if (tableMode() == (sql != null)) {
            return Optional.of("give either table(...) + columns(...) + rows(...), or sql(...) with a "
                    + "JdbcStatementBuilder, not both and not neither");
        }
        return Optional.empty();
    }

    /** What table mode lacks, once {@link #choiceProblem} found nothing; empty when nothing or with sql(...). */
    Optional<String> tableProblem() {
        if (tableMode() && (table == null || columns == null || rowMapper == null)) {
            return Optional.of("table mode needs all of table(...), columns(...) and rows(...); missing "
                    + (table == null ? "table " : "")
                    + (columns == null ? "columns " : "")
                    + (rowMapper == null ? "rows" : ""));
        }
        return Optional.empty();
    }

    /**
     * What breaks the rules between the write mode's settings and these, then what table mode lacks; empty when
     * nothing does (after {@link #choiceProblem}).
     */
    Optional<String> modeProblem(WriteModeSettings<IN> writeMode, String upsertClause) {
        Optional<String> problem =
                routes != null ? writeMode.routedProblem() : writeMode.problem(tableMode(), columns, upsertClause);
        return problem.isPresent() ? problem : tableProblem();
    }

    /** The write mode of a set that passed {@link #choiceProblem} and {@link #modeProblem}. */
    WriteMode<IN> toMode(WriteModeSettings<IN> writeMode) {
        return routes != null ? WriteMode.routed(routes) : writeMode.toMode(toStatement());
    }

    /** The statement of a set that passed {@link #choiceProblem} and {@link #tableProblem}. */
    InsertStatement<IN> toStatement() {
        return tableMode()
                ? InsertStatement.forColumns(table, columns, rowMapper)
                : InsertStatement.forSql(sql, statementBuilder);
    }
}
