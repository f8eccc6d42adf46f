/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.java.functions.KeySelector;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.text.Normalizer;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The key an upsert sink (PostgreSQL's, XA's) distributes its input by, so that one writer subtask
 * owns each key: the upsert key columns' values of the row mapper's row, as one string. A string's {@code hashCode}
 * depends on its characters alone, so a key goes to the same subtask in every attempt and JVM.
 *
 * <p>Invariant: records that the table's unique index takes as one key get equal keys here. Values
 * go in the form the PostgreSQL upsert writer compares keys by (numbers normalized,
 * 1.0 = 1.00 = 1), made coarser where the database's equality may be coarser than the value's text,
 * since the column types are not known before the writers start: text without trailing spaces
 * ({@code char(n)}, MariaDB's PAD SPACE collations), case-folded and without accents (citext,
 * case- and accent-insensitive collations, MariaDB's default {@code _ci} ones), instants at UTC ({@code timestamptz}). Coarser only puts more keys on one subtask. A
 * collation that ignores even more (punctuation) may still split spellings of one key over two
 * subtasks; two writers that write that row in one epoch then wait for each other's row locks (each
 * transaction commits only with a checkpoint the other's barrier completes) until the lock timeout
 * fails one over, which a replay may repeat.
 *
 * <p>A record whose row cannot be made (the mapper throws) or whose key is null goes to one fixed
 * subtask, whose writer refuses it with its usual message, naming the sink, table and record.
 */
@Internal
public final class UpsertKeys<IN> implements KeySelector<IN, String> {

    private static final long serialVersionUID = 1L;

    /** The key of records the writer will refuse. */
    public static final String UNWRITABLE = "";

    private static final Pattern MARKS = Pattern.compile("\\p{M}+");

    private final InsertStatement.Columns<IN> statement;
    private final int[] keyIndexes;

    private UpsertKeys(InsertStatement.Columns<IN> statement, int[] keyIndexes) {
        this.statement = statement;
        this.keyIndexes = keyIndexes;
    }

    /** The key of {@code keyColumns}, which are among {@code statement}'s columns. */
    public static <IN> UpsertKeys<IN> of(InsertStatement.Columns<IN> statement, List<String> keyColumns) {
        int[] indexes = keyColumns.stream()
                .mapToInt(c -> statement.columns().indexOf(c))
                .toArray();
        if (Arrays.stream(indexes).anyMatch(i -> i < 0)) {
            throw new IllegalArgumentException(
                    "upsert key " + keyColumns + " must be among the columns " + statement.columns());
        }
        return new UpsertKeys<>(statement, indexes);
    }

    @Override
    public String getKey(IN record) {
        Object[] row;
        try {
            row = statement.toRow(record);
        } catch (Exception e) {
            return UNWRITABLE; // the writer refuses it with its own message, as without this key
        }
        StringBuilder key = new StringBuilder();
        for (int index : keyIndexes) {
            String part = row[index] == null ? null : form(row[index]);
            if (part == null) {
                return UNWRITABLE;
            }
            // length-prefixed, so that no two different tuples of parts make one string
            key.append(part.length()).append(':').append(part);
        }
        return key.toString();
    }

    /** A value's form for distribution: equal for values the database may take as one key. */
    static String form(Object value) {
        if (value instanceof CharSequence || value instanceof Character) {
            return folded(value.toString());
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return Long.toString(((Number) value).longValue()); // what the BigDecimal form below gives them, cheaply
        }
        if (value instanceof BigDecimal || value instanceof BigInteger) {
            return new BigDecimal(value.toString()).stripTrailingZeros().toPlainString();
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (d == 0 || Double.isNaN(d) || Double.isInfinite(d)) {
                return d == 0 ? "0" : Double.toString(d); // -0 = 0 in PostgreSQL
            }
            return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
        }
        if (value instanceof OffsetDateTime) {
            return ((OffsetDateTime) value).toInstant().toString();
        }
        if (value instanceof ZonedDateTime) {
            return ((ZonedDateTime) value).toInstant().toString();
        }
        if (value instanceof OffsetTime) {
            return ((OffsetTime) value)
                    .withOffsetSameInstant(java.time.ZoneOffset.UTC)
                    .toString();
        }
        if (value instanceof java.util.Date
                && !(value instanceof java.sql.Date)
                && !(value instanceof java.sql.Time)
                && !(value instanceof java.sql.Timestamp)) {
            return Long.toString(((java.util.Date) value).getTime());
        }
        if (value instanceof Object[]) {
            return Arrays.deepToString(Arrays.stream((Object[]) value)
                    .map(v -> v == null ? null : form(v))
                    .toArray());
        }
        if (value instanceof byte[]) {
            return "\\x" + HexFormat.of().formatHex((byte[]) value);
        }
        if (value.getClass().isArray()) { // of primitives: by content
            return Arrays.deepToString(new Object[] {value});
        }
        if (!overridesToString(value)) {
            return null; // an identity string differs between JVMs; pgjdbc binds no such value either
        }
        return value.toString(); // booleans, UUIDs, java.time and java.sql values: their canonical text
    }

    /**
     * A text value's form for distribution, without trailing spaces, case-folded, accents removed:
     * equal for spellings the database may take as one key. Also what the SQL connector partitions
     * text keys by.
     */
    public static String folded(String text) {
        String trimmed = text.stripTrailing();
        String decomposed = Normalizer.normalize(trimmed, Normalizer.Form.NFKD);
        String unmarked = MARKS.matcher(decomposed).replaceAll("");
        // upper then lower: one form for the letters whose cases do not map back and forth (ß, ς);
        // dotless i with i, as a Turkish locale folds them
        return unmarked.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT).replace('\u0131', 'i');
    }

    private static boolean overridesToString(Object value) {
        try {
            return value.getClass().getMethod("toString").getDeclaringClass() != Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "upsert key of " + statement.describe();
    }
}
