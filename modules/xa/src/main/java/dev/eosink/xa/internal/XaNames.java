/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;

import java.util.List;
import java.util.Optional;

/**
 * Whether the database's dialect can name every table and column the sink is given: Firebird 3, for one, takes
 * identifiers of at most 31 bytes and no schema, and its dialect refuses others with an {@link
 * IllegalArgumentException}. Such a name fails every restart the same way, so the writer refuses it at start with a
 * {@code MisconfigurationException} (no restarts), and {@code XaSinkBuilder.build()} already where it is given the
 * URL, both with this one problem.
 */
@Internal
public final class XaNames {

    private XaNames() {}

    /**
     * The first name of {@code options} that {@code dialect} cannot name, as a problem naming its option, the name
     * and the dialect's remedy; empty when it can name them all.
     */
    public static Optional<String> problem(JdbcDialect dialect, JdbcSinkOptions<?> options) {
        if (options.statement() instanceof InsertStatement.Columns<?> insert) {
            Optional<String> target = table(dialect, "target table (table(...))", insert.table());
            if (target.isPresent()) {
                return target;
            }
            Optional<String> columns = columns(dialect, "column (columns(...))", insert.columns());
            if (columns.isPresent()) {
                return columns;
            }
        }
        if (options.writeMode() instanceof WriteMode.Upserts<?> upserts) {
            Optional<String> key = columns(dialect, "upsert key column (upsert(...))", upserts.key());
            if (key.isPresent()) {
                return key;
            }
        }
        Optional<String> markers = table(dialect, "marker table (markerTable(...))", options.markerTable());
        if (markers.isPresent()) {
            return markers;
        }
        if (options.writeMode() instanceof WriteMode.Inserts<?> inserts
                && inserts.refused() instanceof RefusedRecords.DeadLetterTable deadLetters) {
            return table(dialect, "dead-letter table (deadLetterTable(...))", deadLetters.table());
        }
        return Optional.empty();
    }

    private static Optional<String> table(JdbcDialect dialect, String option, SqlIdentifier table) {
        try {
            dialect.qualified(table);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(refusal(dialect, option, table.toString(), e));
        }
    }

    private static Optional<String> columns(JdbcDialect dialect, String option, List<String> columns) {
        for (String column : columns) {
            try {
                dialect.quote(column);
            } catch (IllegalArgumentException e) {
                return Optional.of(refusal(dialect, option, column, e));
            }
        }
        return Optional.empty();
    }

    private static String refusal(JdbcDialect dialect, String option, String name, IllegalArgumentException e) {
        return "the " + option + " " + name + " cannot be named on " + dialect.name() + ", and every restart would "
                + "find the same: " + e.getMessage();
    }
}
