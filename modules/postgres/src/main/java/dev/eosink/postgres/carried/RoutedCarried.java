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
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The upserts and deletes a routed sink (many tables) carried past a barrier: per table, by the name its route
 * gives it, that table's {@link CarriedStatements}, in the order the sink runs the tables. Layout: the marker byte
 * {@link #MARK} (never a first byte of {@link CarriedStatements}, which starts with its small version number), the
 * number of tables, then per table its name (modified UTF-8) and its statements' length and bytes.
 *
 * <p>{@code @Internal}: public for the operator tool, which must tell these from a one-table sink's.
 */
@Internal
public final class RoutedCarried {

    /** The first byte of a routed sink's carried writes: 'R'. */
    public static final byte MARK = 'R';

    /**
     * The first byte of a table's carried bytes when the table was truncated before its statements: its rows are
     * deleted first, then the statements that follow (none when the bytes end there) run. Never a first byte of
     * {@link CarriedStatements}.
     */
    public static final byte TRUNCATED = 'T';

    /** A truncated table's carried bytes: {@link #TRUNCATED}, then its statements if any. */
    public static byte[] truncated(java.util.Optional<byte[]> statements) {
        byte[] rest = statements.orElse(new byte[0]);
        byte[] bytes = new byte[rest.length + 1];
        bytes[0] = TRUNCATED;
        System.arraycopy(rest, 0, bytes, 1, rest.length);
        return bytes;
    }

    /** Whether a table's carried bytes begin with its truncation. */
    public static boolean isTruncated(byte[] table) {
        return table.length > 0 && table[0] == TRUNCATED;
    }

    /** A table's carried statements, without the truncation before them; empty when there are none. */
    public static java.util.Optional<byte[]> statementsOf(byte[] table) {
        if (!isTruncated(table)) {
            return java.util.Optional.of(table);
        }
        return table.length == 1
                ? java.util.Optional.empty()
                : java.util.Optional.of(java.util.Arrays.copyOfRange(table, 1, table.length));
    }

    private RoutedCarried() {}

    /** Whether {@code bytes} are a routed sink's carried writes. */
    public static boolean isRouted(byte[] bytes) {
        return bytes.length > 0 && bytes[0] == MARK;
    }

    /** Each table's carried statements, by table name, in the order given. */
    public static byte[] encode(Map<String, byte[]> tables) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(MARK);
            out.writeInt(tables.size());
            for (Map.Entry<String, byte[]> t : tables.entrySet()) {
                out.writeUTF(t.getKey());
                out.writeInt(t.getValue().length);
                out.write(t.getValue());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // into memory: cannot happen
        }
    }

    /**
     * The tables' carried statements, by table name, in their order.
     *
     * @throws CarriedStatementsRefused when the bytes are not a routed sink's, or are cut short
     */
    public static Map<String, byte[]> decode(byte[] bytes) throws CarriedStatementsRefused {
        if (!isRouted(bytes)) {
            throw new CarriedStatementsRefused("the restored state carries the writes of a sink of one table, not of "
                    + "routed tables: restore with the sink's write mode of the job that took the checkpoint");
        }
        Map<String, byte[]> tables = new LinkedHashMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 1, bytes.length - 1))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int length = in.readInt();
                if (length < 0 || length > in.available()) {
                    throw new EOFException();
                }
                tables.put(name, in.readNBytes(length));
            }
            return tables;
        } catch (IOException e) {
            throw new CarriedStatementsRefused("the carried upserts and deletes of routed tables are cut short", e);
        }
    }
}
