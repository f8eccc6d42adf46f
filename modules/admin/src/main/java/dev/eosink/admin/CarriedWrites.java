/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.postgres.carried.CarriedStatements;
import dev.eosink.postgres.carried.RoutedCarried;
import dev.eosink.xa.carried.XaCarried;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The writes one writer state carried past its barrier, decoded with the codec of the sink that carried them
 * (the PostgreSQL sink's text, or the XA sink's row values): which columns, which key, and each write, a delete
 * of a key or an upsert of a row, in the order the writer would have run them.
 */
final class CarriedWrites {

    /** How the sink kept the values: what a database must do to bind them. */
    enum Encoding {
        /** The PostgreSQL sink: every value as its text, cast by the server to the column's type. */
        POSTGRES_TEXT,
        /** The XA sink: the row mapper's Java values, bound as they are. */
        XA_OBJECTS
    }

    /** One carried write: the delete of a key, or the upsert of a whole row. */
    static final class Write {
        private final boolean delete;
        private final List<Object> key;
        private final List<Object> values;

        private Write(boolean delete, List<Object> key, List<Object> values) {
            this.delete = delete;
            this.key = key;
            this.values = values;
        }

        boolean delete() {
            return delete;
        }

        /** The key's values, in the order of {@link CarriedWrites#keyColumns()}. */
        List<Object> key() {
            return key;
        }

        /** Every column's value for an upsert, in the order of {@link CarriedWrites#columns()}; empty for a delete. */
        List<Object> values() {
            return values;
        }
    }

    private final Encoding encoding;
    private final List<String> columns;
    private final Optional<List<String>> keyColumns;
    private final List<Write> writes;

    private CarriedWrites(
            Encoding encoding, List<String> columns, Optional<List<String>> keyColumns, List<Write> writes) {
        this.encoding = encoding;
        this.columns = columns;
        this.keyColumns = keyColumns;
        this.writes = writes;
    }

    /**
     * Decodes a writer state's carried bytes. The XA sink's start with its version byte and then Java
     * serialization's magic number (0xACED), which the PostgreSQL sink's never have there (a column count).
     */
    static CarriedWrites decode(byte[] bytes, String where) throws AdminException {
        try {
            if (RoutedCarried.isRouted(bytes)) {
                throw new AdminException(where + " carries the writes of a sink of routed tables ("
                        + RoutedCarried.decode(bytes).keySet() + "), which this tool does not show or write. Remedy: "
                        + "restore the job from it with the sink's state (its writers write them)");
            }
            if (bytes.length > 2 && bytes[1] == (byte) 0xAC && bytes[2] == (byte) 0xED) {
                return xa(XaCarried.decode(bytes));
            }
            return postgres(CarriedStatements.decode(bytes));
        } catch (CarriedStatementsRefused e) {
            throw new AdminException(
                    where + " carries writes this tool cannot read: " + e.getMessage()
                            + ". Remedy: use the tool of the release whose job took the snapshot, or restore the job from it "
                            + "with the sink's state (its writers write them)",
                    e);
        }
    }

    private static CarriedWrites postgres(CarriedStatements carried) {
        List<Write> writes = new ArrayList<>(carried.statements().size());
        for (CarriedStatements.Statement s : carried.statements()) {
            writes.add(new Write(
                    s.delete(),
                    Arrays.asList((Object[]) s.key()),
                    s.delete() ? List.of() : Arrays.asList((Object[]) s.values())));
        }
        return new CarriedWrites(Encoding.POSTGRES_TEXT, carried.columns(), carried.keyColumns(), writes);
    }

    private static CarriedWrites xa(XaCarried carried) {
        int[] keyIndexes = carried.keyColumns().stream()
                .mapToInt(carried.columns()::indexOf)
                .toArray();
        List<Write> writes = new ArrayList<>(carried.rows().size());
        for (int i = 0; i < carried.rows().size(); i++) {
            Object[] row = carried.rows().get(i);
            List<Object> key = new ArrayList<>(keyIndexes.length);
            for (int k : keyIndexes) {
                key.add(row[k]);
            }
            boolean delete = carried.deletes().get(i);
            writes.add(new Write(delete, key, delete ? List.of() : Arrays.asList(row)));
        }
        return new CarriedWrites(Encoding.XA_OBJECTS, carried.columns(), Optional.of(carried.keyColumns()), writes);
    }

    Encoding encoding() {
        return encoding;
    }

    List<String> columns() {
        return columns;
    }

    /** The key columns; empty for the PostgreSQL sink's first layout, which kept only their number. */
    Optional<List<String>> keyColumns() {
        return keyColumns;
    }

    List<Write> writes() {
        return writes;
    }

    long deletes() {
        return writes.stream().filter(Write::delete).count();
    }

    long upserts() {
        return writes.size() - deletes();
    }

    /** "upsert k=5: v=2605, note=n2605" or "delete k=17", as the listing shows a write. */
    String show(Write w) {
        if (keyColumns.isEmpty()) {
            return (w.delete() ? "delete key " : "upsert key ")
                    + w.key().stream().map(CarriedWrites::show).collect(Collectors.joining(", "))
                    + (w.delete() ? "" : ": " + pairs(columns, w.values(), List.of()));
        }
        String key = pairs(keyColumns.get(), w.key(), List.of());
        return w.delete() ? "delete " + key : "upsert " + key + ": " + pairs(columns, w.values(), keyColumns.get());
    }

    /** {@code name=value, ...}, leaving out the columns {@code leftOut}. */
    private static String pairs(List<String> names, List<Object> values, List<String> leftOut) {
        List<String> pairs = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            if (!leftOut.contains(names.get(i))) {
                pairs.add(names.get(i) + "=" + show(values.get(i)));
            }
        }
        return String.join(", ", pairs);
    }

    private static String show(Object value) {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof byte[] bytes) {
            return bytes.length + " bytes";
        }
        String text = value.toString();
        return text.length() > 60 ? text.substring(0, 57) + "..." : text;
    }

    /** "columns (k, v, note), key (k)": what the writes are for. */
    String describe() {
        return "columns (" + String.join(", ", columns) + "), key "
                + keyColumns
                        .map(k -> "(" + String.join(", ", k) + ")")
                        .orElse("of "
                                + (writes.isEmpty() ? "?" : writes.get(0).key().size()) + " column(s), not named (the "
                                + "first layout)");
    }

    @Override
    public String toString() {
        return "CarriedWrites[" + encoding + ", " + writes.size() + " writes, " + describe() + "]";
    }

    /** The key columns, or the refusal to write writes that do not name them. */
    List<String> keyColumnsToWrite(String where) throws AdminException {
        return keyColumns.orElseThrow(() -> new AdminException(where + " carries writes in the PostgreSQL sink's first "
                + "layout, which names no key column: the tool cannot tell which columns a delete matches. Remedy: "
                + "restore the job from that snapshot with the sink's state (its writers write them)"));
    }

    static String subtasks(List<Integer> subtasks) {
        return subtasks.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
