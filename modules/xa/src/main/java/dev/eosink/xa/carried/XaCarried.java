/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.carried;

import dev.eosink.jdbc.sql.CarriedStatementsRefused;

import org.apache.flink.annotation.Internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The upserts and deletes an XA upsert writer carried past a barrier (its upserts' {@code carried()}), in
 * the form checkpoint state keeps them: each one's row values as the row mapper made them, so that a
 * restored writer binds them exactly as the record's own write would have ({@code setObject}, no text
 * the server must parse back into the column's type).
 *
 * <p>Layout (version 1): the version byte, then by Java serialization: the column names and the key
 * columns (a restore into other columns or by another key refuses instead of writing values into the
 * wrong place), the number of statements, and each one's delete flag and row. Rows hold the values a
 * row mapper returns (JDK types: numbers, strings, {@code java.time}, {@code byte[]}); classes are
 * resolved by the task's user-code class loader.
 *
 * <p>{@code @Internal}: public for the XA sink's {@code internal} package and the operator tool, which shows and
 * writes them; no promise to anyone else.
 */
@Internal
public final class XaCarried {

    private static final byte VERSION_1 = 1;

    private final List<String> columns;
    private final List<String> keyColumns;
    private final List<Object[]> rows;
    private final List<Boolean> deletes;

    private XaCarried(List<String> columns, List<String> keyColumns, List<Object[]> rows, List<Boolean> deletes) {
        this.columns = columns;
        this.keyColumns = keyColumns;
        this.rows = rows;
        this.deletes = deletes;
    }

    public List<String> columns() {
        return columns;
    }

    public List<String> keyColumns() {
        return keyColumns;
    }

    /** Each statement's row, the values in the order of {@link #columns()}; a delete's holds its key there. */
    public List<Object[]> rows() {
        return rows;
    }

    public List<Boolean> deletes() {
        return deletes;
    }

    public static byte[] encode(
            List<String> columns, List<String> keyColumns, List<Object[]> rows, List<Boolean> deletes)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(VERSION_1);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new ArrayList<>(columns));
            out.writeObject(new ArrayList<>(keyColumns));
            out.writeInt(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                out.writeBoolean(deletes.get(i));
                out.writeObject(rows.get(i));
            }
        } catch (java.io.NotSerializableException e) {
            throw new IOException(
                    "a held upsert's row holds a value that cannot be kept in checkpoint state (" + e.getMessage()
                            + "): let the row mapper return JDK values (numbers, strings, java.time, byte[])",
                    e);
        }
        return bytes.toByteArray();
    }

    @SuppressWarnings("unchecked")
    public static XaCarried decode(byte[] bytes) throws CarriedStatementsRefused {
        if (bytes.length == 0 || bytes[0] != VERSION_1) {
            throw CarriedStatementsRefused.unknownVersion(
                    bytes.length == 0 ? "none" : String.valueOf(bytes[0]), VERSION_1);
        }
        try (ObjectInputStream in = new UserCodeObjectInput(new ByteArrayInputStream(bytes, 1, bytes.length - 1))) {
            List<String> columns = List.copyOf((List<String>) in.readObject());
            List<String> keyColumns = List.copyOf((List<String>) in.readObject());
            int n = in.readInt();
            List<Object[]> rows = new ArrayList<>(n);
            List<Boolean> deletes = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                deletes.add(in.readBoolean());
                rows.add((Object[]) in.readObject());
            }
            return new XaCarried(columns, keyColumns, rows, deletes);
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new CarriedStatementsRefused("they cannot be read: " + e, e);
        }
    }

    /** Resolves classes by the thread's context class loader: Flink's user-code class loader in a task. */
    private static final class UserCodeObjectInput extends ObjectInputStream {
        UserCodeObjectInput(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    // fall back to the default resolution
                }
            }
            return super.resolveClass(desc);
        }
    }
}
