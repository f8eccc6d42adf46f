package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.CarriedStatementsRefused;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The upserts and deletes an upsert writer carried past a barrier, in the form checkpoint state keeps
 * them: each one's key and, for an upsert, every column's value, as the text that {@link UpsertBuffer}
 * sends to the server anyway. Text keeps the state independent of the records' Java types (a DataStream
 * POJO, a RowData): a restored writer needs only the table, never the job's classes.
 *
 * <p>Layout (version 1): the version byte; the column names, so that a restore into a table whose
 * columns changed refuses instead of writing values into the wrong columns; the number of key
 * columns; then each statement: a delete flag, its key parts, and for an upsert its column values.
 * Strings are length-prefixed UTF-8, -1 for SQL NULL.
 */
final class CarriedStatements {

    private static final byte VERSION_1 = 1;

    /** One carried statement: a delete of {@code key}, or an upsert of {@code values} (null for a delete). */
    static final class Statement {
        private final boolean delete;
        private final String[] key;
        private final String[] values;

        Statement(boolean delete, String[] key, String[] values) {
            this.delete = delete;
            this.key = key;
            this.values = values;
        }

        boolean delete() {
            return delete;
        }

        String[] key() {
            return key;
        }

        String[] values() {
            return values;
        }
    }

    private final List<String> columns;
    private final int keyColumns;
    private final List<Statement> statements;

    CarriedStatements(List<String> columns, int keyColumns, List<Statement> statements) {
        this.columns = List.copyOf(columns);
        this.keyColumns = keyColumns;
        this.statements = statements;
    }

    List<String> columns() {
        return columns;
    }

    int keyColumns() {
        return keyColumns;
    }

    List<Statement> statements() {
        return statements;
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION_1);
            out.writeInt(columns.size());
            for (String c : columns) {
                writeString(out, c);
            }
            out.writeInt(keyColumns);
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

    /** @throws CarriedStatementsRefused when the bytes are not statements this release wrote */
    static CarriedStatements decode(byte[] bytes) throws CarriedStatementsRefused {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readByte();
            if (version != VERSION_1) {
                throw CarriedStatementsRefused.unknownVersion(String.valueOf(version), VERSION_1);
            }
            int columnCount = count(in);
            List<String> columns = new ArrayList<>(columnCount);
            for (int i = 0; i < columnCount; i++) {
                columns.add(readString(in));
            }
            int keyColumns = count(in);
            int n = count(in);
            List<Statement> statements = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                boolean delete = in.readBoolean();
                String[] key = new String[keyColumns];
                for (int k = 0; k < keyColumns; k++) {
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
            return new CarriedStatements(columns, keyColumns, statements);
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
