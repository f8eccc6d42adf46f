/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.SqlIdentifier;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The text of the statements an {@link UpsertBuffer} runs (its class comment shows them): the array-bound
 * upsert and delete by key, or, for keys only the database can compare ({@link KeyColumns#databaseDecides()}),
 * the one statement that merges a batch by the database's own equality; and the upsert with NULL arrays, to
 * EXPLAIN at start.
 *
 * <p>Invariant: every value travels in a text array, one per column in the order given (then, in the
 * merging statement, one of delete flags), and is cast by the server to its column's type (an array column
 * row by row: {@link #unnested}), so every type with a text form works and type modifiers are enforced;
 * every name is quoted as given.
 */
final class UpsertSql {

    /** The upsert of a batch's rows, one array parameter per column. */
    final String upsert;
    /** {@link #upsert}, or the merging statement, with NULL arrays instead of parameters. */
    final String upsertWithNulls;
    /** The delete of a batch's keys, one array parameter per key column. */
    final String delete;
    /** The one statement of a batch whose keys only the database can compare, or null. */
    final String deduping;

    /**
     * @param columns the columns written, in the order of the rows' values
     * @param columnTypes their types, as format_type names them
     * @param keyIndexes the position of each key column among {@code columns}
     */
    UpsertSql(SqlIdentifier table, List<String> columns, List<String> columnTypes, KeyColumns keys, int[] keyIndexes) {
        List<String> keyColumns = keys.names();
        this.upsert = upsertSql(table, columns, columnTypes, keyColumns, "?");
        this.deduping = keys.databaseDecides() ? dedupingSql(table, columns, columnTypes, keys, keyIndexes, "?") : null;
        this.upsertWithNulls = keys.databaseDecides()
                ? dedupingSql(table, columns, columnTypes, keys, keyIndexes, "NULL")
                : upsertSql(table, columns, columnTypes, keyColumns, "NULL");
        String quotedKeys = keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        String keyArrays = Arrays.stream(keyIndexes)
                .mapToObj(i -> "?::text[]::" + columnTypes.get(i) + "[]")
                .collect(Collectors.joining(", "));
        this.delete = "DELETE FROM " + table.sql() + " WHERE (" + quotedKeys + ") IN (SELECT * FROM unnest(" + keyArrays
                + "))";
    }

    /** The upsert with {@code parameter} for each column's array: "?" to bind, "NULL" to EXPLAIN. */
    private static String upsertSql(
            SqlIdentifier table,
            List<String> columns,
            List<String> columnTypes,
            List<String> keyColumns,
            String parameter) {
        String cols = columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        String arrays = columnTypes.stream().map(t -> unnested(t, parameter)).collect(Collectors.joining(", "));
        String keys = keyColumns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        List<String> others = new ArrayList<>(columns);
        others.removeAll(keyColumns);
        String action = others.isEmpty()
                ? "DO NOTHING"
                : "DO UPDATE SET "
                        + others.stream()
                                .map(c -> SqlIdentifier.quote(c) + " = EXCLUDED." + SqlIdentifier.quote(c))
                                .collect(Collectors.joining(", "));
        String rows = columnTypes.stream().noneMatch(UpsertSql::isArray)
                ? "* FROM unnest(" + arrays + ")"
                : values("u.c", columnTypes) + " FROM unnest(" + arrays + ") AS u(" + aliases(columns.size()) + ")";
        return "INSERT INTO " + table.sql() + " (" + cols + ") SELECT " + rows + " ON CONFLICT (" + keys + ") "
                + action;
    }

    /**
     * A column's values as an argument of unnest: a text array cast to an array of the column's type,
     * or, for an array column, the text array itself, cast row by row in the select list ({@link
     * #values}): unnest flattens an array of arrays, which PostgreSQL's arrays of several dimensions are.
     */
    private static String unnested(String type, String parameter) {
        return isArray(type) ? parameter + "::text[]" : parameter + "::text[]::" + type + "[]";
    }

    /** The unnested columns {@code prefix}0, {@code prefix}1, ..., array columns cast to their type. */
    private static String values(String prefix, List<String> columnTypes) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < columnTypes.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(prefix).append(i);
            if (isArray(columnTypes.get(i))) {
                b.append("::").append(columnTypes.get(i));
            }
        }
        return b.toString();
    }

    private static String aliases(int columns) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < columns; i++) {
            b.append(i == 0 ? "c" : ", c").append(i);
        }
        return b.toString();
    }

    /** Whether a column's type, as format_type names it, is an array type ("integer[]"). */
    private static boolean isArray(String type) {
        return type.endsWith("[]");
    }

    /** The batch statement of {@link KeyColumns.Form#DATABASE} keys (see the class comment). */
    private static String dedupingSql(
            SqlIdentifier table,
            List<String> columns,
            List<String> columnTypes,
            KeyColumns keys,
            int[] keyIndexes,
            String parameter) {
        String arrays = columnTypes.stream().map(t -> unnested(t, parameter)).collect(Collectors.joining(", ")) + ", "
                + parameter + "::text[]::boolean[]";
        StringBuilder aliases = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            aliases.append("c").append(i).append(", ");
        }
        List<String> sameKey = new ArrayList<>(); // the key as its unique index compares it
        List<String> lastKey = new ArrayList<>();
        for (int k = 0; k < keyIndexes.length; k++) {
            sameKey.add("c" + keyIndexes[k] + keys.collate(k));
            lastKey.add("eosink_last.c" + keyIndexes[k] + keys.collate(k));
        }
        String keyList = String.join(", ", sameKey);
        String quotedKeys = keys.names().stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "));
        List<String> set = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            int k = keys.names().indexOf(columns.get(i));
            if (k < 0 || keys.form(k) == KeyColumns.Form.DATABASE) { // the key takes the last record's spelling
                set.add(SqlIdentifier.quote(columns.get(i)) + " = EXCLUDED." + SqlIdentifier.quote(columns.get(i)));
            }
        }
        String values = values("eosink_last.c", columnTypes);
        return "WITH eosink_batch AS (SELECT * FROM unnest(" + arrays + ") WITH ORDINALITY AS b(" + aliases
                + "eosink_delete, eosink_order)), "
                + "eosink_last AS (SELECT DISTINCT ON (" + keyList + ") * FROM eosink_batch ORDER BY " + keyList
                + ", eosink_order DESC), "
                + "eosink_deleted AS (DELETE FROM " + table.sql() + " WHERE (" + quotedKeys + ") IN (SELECT "
                + String.join(", ", lastKey) + " FROM eosink_last WHERE eosink_delete)) "
                + "INSERT INTO " + table.sql() + " ("
                + columns.stream().map(SqlIdentifier::quote).collect(Collectors.joining(", "))
                + ") SELECT " + values + " FROM eosink_last WHERE NOT eosink_delete ON CONFLICT (" + quotedKeys
                + ") DO UPDATE SET " + String.join(", ", set);
    }
}
