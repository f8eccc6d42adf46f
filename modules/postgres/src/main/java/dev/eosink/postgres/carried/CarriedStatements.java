/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.carried;

import dev.eosink.jdbc.sql.CarriedStatementsRefused;

import org.apache.flink.annotation.Internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The upserts and deletes a PostgreSQL upsert writer carried past a barrier, in the form checkpoint state keeps
 * them: each one's key and, for an upsert, every column's value, as the text that the writer sends to the server
 * anyway. Text keeps the state independent of the records' Java types (a DataStream POJO, a RowData): a restored
 * writer needs only the table, never the job's classes, and so does an operator's tool that writes them by hand.
 *
 * <p>Layout: the version byte; the column names, so that a restore into a table whose columns changed refuses
 * instead of writing values into the wrong columns; the key columns (version 2: their names; version 1: their
 * number); then each statement: a delete flag, its key parts (in the order of the key columns), and for an upsert
 * every column's value. Strings are length-prefixed UTF-8, -1 for SQL NULL. Writes version 2, reads both.
 *
 * <p>{@code @Internal}: public for the operator tool, which shows and writes them; no promise to anyone else.
 */
@Internal
public final class CarriedStatements {

    private static final byte VERSION_1 = 1;
    private static final byte VERSION_2 = 2;

    /** One carried statement: a delete of {@code key}, or an upsert of {@code values} (null for a delete). */
    public static final class Statement {
        private final boolean delete;
        private final String[] key;
        private final String[] values;

        public Statement(boolean delete, String[] key, String[] values) {
            this.delete = delete;
            this.key = key;
            this.values = values;
        }

        public boolean delete() {
            return delete;
        }

        /** The key's parts as text, in the order of the key columns. */
        public String[] key() {
            return key;
        }

        /** Every column's value as text (null for SQL NULL); null for a delete. */
        public String[] values() {
            return values;
        }
    }

    private final List<String> columns;
    private final int keyColumnCount;
    /** Empty in version 1, which kept the number of key columns only. */
    private final Optional<List<String>> keyColumns;

    private final List<Statement> statements;

    /** Statements to carry, for {@code columns} keyed by {@code keyColumns}. */
    public CarriedStatements(List<String> columns, List<String> keyColumns, List<Statement> statements) {
        this(columns, keyColumns.size(), Optional.of(List.copyOf(keyColumns)), statements);
    }

    private CarriedStatements(
            List<String> columns, int keyColumnCount, Optional<List<String>> keyColumns, List<Statement> statements) {
        this.columns = List.copyOf(columns);
        this.keyColumnCount = keyColumnCount;
        this.keyColumns = keyColumns;
        this.statements = statements;
    }

    public List<String> columns() {
        return columns;
    }

    public int keyColumnCount() {
        return keyColumnCount;
    }

    /** The key columns' names, in the order of each statement's key parts; empty for state of version 1. */
    public Optional<List<String>> keyColumns() {
        return keyColumns;
    }

    public List<Statement> statements() {
        return statements;
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION_2);
            out.writeInt(columns.size());
            for (String c : columns) {
                writeString(out, c);
            }
            List<String> keys = keyColumns.orElseThrow(() -> new IllegalStateException("no key column names"));
            out.writeInt(keys.size());
            for (String k : keys) {
                writeString(out, k);
            }
            out.writeInt(statements.size());
            for (Statement s : statements) {
                out.writeBoolean(s.delete());
                for (String part : s.key()) {
                    writeString(out, part);
                }
                if (!s.delete()) {
                    for (String value : s.values()) {
                        writeString(out, value);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** @throws CarriedStatementsRefused when the bytes are not statements of a version this release reads */
    public static CarriedStatements decode(byte[] bytes) throws CarriedStatementsRefused {
        if (RoutedCarried.isRouted(bytes)) {
            throw new CarriedStatementsRefused(
                    "they are the writes of a sink of routed tables, not of one table: restore "
                            + "with the sink's write mode of the job that took the checkpoint");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readByte();
            if (version != VERSION_1 && version != VERSION_2) {
                throw CarriedStatementsRefused.unknownVersion(String.valueOf(version), VERSION_2);
            }
            int columnCount = count(in);
            List<String> columns = new ArrayList<>(columnCount);
            for (int i = 0; i < columnCount; i++) {
                columns.add(readString(in));
            }
            int keyColumnCount = count(in);
            Optional<List<String>> keyColumns = Optional.empty();
            if (version == VERSION_2) {
                List<String> names = new ArrayList<>(keyColumnCount);
                for (int k = 0; k < keyColumnCount; k++) {
                    names.add(readString(in));
                }
                keyColumns = Optional.of(List.copyOf(names));
            }
            int n = count(in);
            List<Statement> statements = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                boolean delete = in.readBoolean();
                String[] key = new String[keyColumnCount];
                for (int k = 0; k < keyColumnCount; k++) {
                    key[k] = readString(in);
                }
                String[] values = null;
                if (!delete) {
                    values = new String[columnCount];
                    for (int c = 0; c < columnCount; c++) {
                        values[c] = readString(in);
                    }
                }
                statements.add(new Statement(delete, key, values));
            }
            if (in.available() != 0) {
                throw new CarriedStatementsRefused("corrupt carried statements: trailing bytes");
            }
            return new CarriedStatements(columns, keyColumnCount, keyColumns, statements);
        } catch (EOFException e) {
            throw new CarriedStatementsRefused("corrupt carried statements: truncated", e);
        } catch (CarriedStatementsRefused e) {
            throw e;
        } catch (IOException e) {
            throw new CarriedStatementsRefused("corrupt carried statements: " + e.getMessage(), e);
        }
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available() + 1) {
            throw new CarriedStatementsRefused("corrupt carried statements: a count of " + n);
        }
        return n;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > in.available()) {
            throw new CarriedStatementsRefused("corrupt carried statements: a string of " + length + " bytes");
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
