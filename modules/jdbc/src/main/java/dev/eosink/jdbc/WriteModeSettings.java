/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.util.List;
import java.util.Optional;

/**
 * The write mode as a builder's setters give it, one setting at a time ({@link
 * JdbcSinkBuilderBase#upsert}, {@link JdbcSinkBuilderBase#changelog}, {@link
 * JdbcSinkBuilderBase#deadLetterTable}): {@link #problem} checks the rules between them and the
 * statement, and {@link #toMode} makes the {@link WriteMode} of a set that passed. A setting not
 * given is null here, and only here: the {@link WriteMode} has a type for each combination.
 *
 * @param <IN> the records the sink writes
 */
final class WriteModeSettings<IN> {

    /** Null: inserts. */
    List<String> upsertKey;
    /** Null: every record is an upsert (with {@link #upsertKey}). */
    RowKindFunction<IN> rowKind;
    /** Null: a refused record fails the epoch. */
    SqlIdentifier deadLetterTable;

    /**
     * What breaks the rules between these settings and the statement, for the builder's message; empty
     * when nothing does.
     *
     * @param columns the columns of table mode; null with {@code sql(...)} or when not given
     * @param upsertClause the clause of the database's upsert statement, for messages
     */
    Optional<String> problem(boolean tableMode, List<String> columns, String upsertClause) {
        if (upsertKey != null || rowKind != null) {
            if (!tableMode) {
                return Optional.of("upsert(...) and changelog(...) need table(...) + columns(...) + rows(...); "
                        + "with sql(...) write the " + upsertClause + " clause yourself");
            }
            if (upsertKey == null) {
                return Optional.of("changelog(...) deletes by key: also give upsert(key columns)");
            }
            if (columns != null && !columns.containsAll(upsertKey)) {
                return Optional.of("upsert key " + upsertKey + " must be among the columns " + columns);
            }
        }
        if (deadLetterTable != null && upsertKey != null) {
            return Optional.of("deadLetterTable(...) works with inserts only: an upsert batch merges records by key, "
                    + "so one refused record cannot be told from the others");
        }
        return Optional.empty();
    }

    /** What a routed sink's write mode settings break: each routed table upserts by its own key. */
    Optional<String> routedProblem() {
        if (upsertKey != null || rowKind != null || deadLetterTable != null) {
            return Optional.of(
                    "tables(...) upserts and deletes each table by the key it declares: give no upsert(...), "
                            + "changelog(...) or deadLetterTable(...) with it");
        }
        return Optional.empty();
    }

    /** The write mode of {@code statement}, once {@link #problem} found none (upserts have table mode). */
    WriteMode<IN> toMode(InsertStatement<IN> statement) {
        if (upsertKey == null) {
            return WriteMode.inserts(
                    statement,
                    deadLetterTable == null
                            ? RefusedRecords.failTheEpoch()
                            : RefusedRecords.deadLetterTable(deadLetterTable));
        }
        InsertStatement.Columns<IN> table = (InsertStatement.Columns<IN>) statement;
        return rowKind == null ? WriteMode.upserts(table, upsertKey) : WriteMode.changelog(table, upsertKey, rowKind);
    }
}
