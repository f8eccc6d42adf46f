/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.copy.BinaryCopyEncoder;
import dev.eosink.postgres.copy.NumericEncoding;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;

/** The {@link FieldCodec}s of scalar values, one class per Flink type, each for the PostgreSQL types {@link TypeMapping} lets it write. */
final class FieldCodecs {

    private FieldCodecs() {}

    /** TINYINT, SMALLINT, INT, BIGINT into int2, int4, int8 or numeric (no narrower than the Flink type). */
    static final class IntegerCodec extends FieldCodec {
        /** The Flink type's bytes: 1, 2, 4, 8; what the value is read as. */
        private final int width;
        /** The PostgreSQL type's bytes: 2, 4, 8; 0 for numeric. */
        private final int pgWidth;

        IntegerCodec(int width, int pgWidth) {
            this.width = width;
            this.pgWidth = pgWidth;
        }

        private long read(RowData v, int i) {
            switch (width) {
                case 1:
                    return v.getByte(i);
                case 2:
                    return v.getShort(i);
                case 4:
                    return v.getInt(i);
                default:
                    return v.getLong(i);
            }
        }

        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            long value = read(v, i);
            switch (pgWidth) {
                case 2:
                    out.int32(2);
                    out.int16(value);
                    break;
                case 4:
                    out.int32(4);
                    out.int32((int) value);
                    break;
                case 8:
                    out.int32(8);
                    out.int64(value);
                    break;
                default:
                    NumericEncoding.encode(out, value, 0);
            }
        }

        @Override
        void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            s.setLong(parameter, read(v, i));
        }

        @Override
        String text(RowData v, int i) {
            return Long.toString(read(v, i));
        }
    }

    /** FLOAT into float4 or float8, DOUBLE into float8: the same bits, NaN and the infinities included. */
    static final class FloatCodec extends FieldCodec {
        /** Whether the Flink type is FLOAT (else DOUBLE). */
        private final boolean single;
        /** Whether the column is float8 (else float4, for FLOAT only). */
        private final boolean toDouble;

        FloatCodec(boolean single, boolean toDouble) {
            this.single = single;
            this.toDouble = toDouble;
        }

        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            if (toDouble) {
                out.int32(8);
                out.int64(Double.doubleToLongBits(single ? v.getFloat(i) : v.getDouble(i)));
            } else {
                out.int32(4);
                out.int32(Float.floatToIntBits(v.getFloat(i)));
            }
        }

        @Override
        void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            if (single && !toDouble) {
                s.setFloat(parameter, v.getFloat(i));
            } else {
                s.setDouble(parameter, single ? v.getFloat(i) : v.getDouble(i));
            }
        }

        /** The shortest decimal that reads back as the same float (float4) or double (float8). */
        @Override
        String text(RowData v, int i) {
            return single && !toDouble
                    ? Float.toString(v.getFloat(i))
                    : Double.toString(single ? v.getFloat(i) : v.getDouble(i));
        }
    }

    /** BOOLEAN into bool. */
    static final class BooleanCodec extends FieldCodec {
        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            out.int32(1);
            out.byte1(v.getBoolean(i) ? 1 : 0);
        }

        @Override
        void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            s.setBoolean(parameter, v.getBoolean(i));
        }

        @Override
        String text(RowData v, int i) {
            return v.getBoolean(i) ? "true" : "false";
        }
    }

    /** DECIMAL(p, s) into numeric: by its unscaled long where it has one, with display scale s. */
    static final class DecimalCodec extends FieldCodec {
        private final int precision;
        private final int scale;

        DecimalCodec(int precision, int scale) {
            this.precision = precision;
            this.scale = scale;
        }

        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            DecimalData d = v.getDecimal(i, precision, scale);
            if (d.isCompact()) {
                NumericEncoding.encode(out, d.toUnscaledLong(), d.scale());
            } else {
                NumericEncoding.encode(out, d.toBigDecimal());
            }
        }

        @Override
        void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            s.setBigDecimal(parameter, v.getDecimal(i, precision, scale).toBigDecimal());
        }

        @Override
        String text(RowData v, int i) {
            return v.getDecimal(i, precision, scale).toBigDecimal().toPlainString();
        }

        /** Without trailing zeros, as the row mapper's keys: 1.50 and 1.5 are one key. */
        @Override
        String keyText(RowData v, int i) {
            return v.getDecimal(i, precision, scale)
                    .toBigDecimal()
                    .stripTrailingZeros()
                    .toPlainString();
        }
    }

    /** BINARY, VARBINARY, BYTES into bytea. */
    static final class BytesCodec extends FieldCodec {
        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            out.bytes(v.getBinary(i));
        }

        @Override
        void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            s.setBytes(parameter, v.getBinary(i));
        }

        @Override
        String text(RowData v, int i) {
            return "\\x" + HexFormat.of().formatHex(v.getBinary(i));
        }
    }

    /** DATE (days since 1970-01-01) into date (days since 2000-01-01). */
    static final class DateCodec extends FieldCodec.BoundAsText {
        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            long days = v.getInt(i) - BinaryCopyEncoder.PG_EPOCH_DAYS;
            if (days < Integer.MIN_VALUE) { // else in an int; the server checks its own, narrower range
                throw new BinaryCopyEncoder.Refused("date out of range: " + PgText.date(v.getInt(i)), "22008");
            }
            out.int32(4);
            out.int32((int) days);
        }

        @Override
        String text(RowData v, int i) {
            return PgText.date(v.getInt(i));
        }
    }

    /** TIME(p) (milliseconds of the day, whatever p) into time (microseconds). */
    static final class TimeCodec extends FieldCodec.BoundAsText {
        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            out.int32(8);
            out.int64(v.getInt(i) * 1000L);
        }

        @Override
        String text(RowData v, int i) {
            return PgText.time(v.getInt(i));
        }
    }

    /**
     * TIMESTAMP(p) into timestamp, TIMESTAMP_LTZ(p) into timestamptz, p at most 6: microseconds since
     * 2000-01-01, of the wall-clock time or of the instant. Flink holds both as milliseconds since
     * 1970-01-01 (the instant's, for TIMESTAMP_LTZ) and nanoseconds within the millisecond.
     */
    static final class TimestampCodec extends FieldCodec.BoundAsText {
        private final int precision;
        private final boolean instant;

        TimestampCodec(int precision, boolean instant) {
            this.precision = precision;
            this.instant = instant;
        }

        private long micros(RowData v, int i) {
            TimestampData t = v.getTimestamp(i, precision);
            try {
                return Math.addExact(Math.multiplyExact(t.getMillisecond(), 1000L), t.getNanoOfMillisecond() / 1000);
            } catch (ArithmeticException e) {
                throw new BinaryCopyEncoder.Refused(
                        (instant ? "timestamp with time zone" : "timestamp") + " out of range: " + t, "22008");
            }
        }

        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            long micros = micros(v, i);
            out.int32(8);
            // Out of PostgreSQL's range (before 4714 BC, after 294276): refused by the server.
            out.int64(micros - BinaryCopyEncoder.PG_EPOCH_MICROS);
        }

        @Override
        String text(RowData v, int i) {
            return PgText.timestamp(micros(v, i), instant);
        }
    }

    /** CHAR, VARCHAR, STRING into text, varchar(n), char(n), citext, an enum, json, jsonb or uuid. */
    static final class StringCodec extends FieldCodec {

        /** How the text goes into the column. */
        enum Form {
            /** The UTF-8 bytes, as text, varchar, char, citext, enum and json receive them. */
            TEXT,
            /** jsonb's binary form: a version byte (1), then the text. */
            JSONB,
            /** uuid's 16 bytes, read as PostgreSQL reads them. */
            UUID
        }

        private final Form form;
        /** varchar(n) or char(n)'s n, checked as the server would; -1 for none. */
        private final int maxLength;
        /** The column's type for the length message: "character varying(10)". */
        private final String declared;

        StringCodec(Form form, int maxLength, String declared) {
            this.form = form;
            this.maxLength = maxLength;
            this.declared = declared;
        }

        @Override
        void copy(RowData v, int i, BinaryCopyEncoder.Buffer out) {
            StringData s = v.getString(i);
            if (form == Form.TEXT && copyUnencoded(s, out)) {
                return;
            }
            if (form == Form.UUID) {
                long[] bits = PgText.uuid(s.toString());
                out.int32(16);
                out.int64(bits[0]);
                out.int64(bits[1]);
                return;
            }
            byte[] utf8 = s.toBytes();
            for (byte b : utf8) {
                if (b == 0) {
                    throw new BinaryCopyEncoder.Refused(
                            "invalid byte sequence for encoding \"UTF8\": 0x00 (text values " + "cannot contain NUL)",
                            "22021");
                }
            }
            if (maxLength >= 0 && utf8.length > maxLength && characters(utf8) > maxLength) {
                BinaryCopyEncoder.checkLength(s.toString(), maxLength, declared); // refuses unless only spaces are over
            }
            if (form == Form.JSONB) {
                out.int32(utf8.length + 1);
                out.byte1(1); // jsonb's binary format version
                out.raw(utf8);
            } else {
                out.bytes(utf8);
            }
        }

        /**
         * Appends a text field straight from the string's Java {@code String} where the string has no
         * bytes yet (as {@code StringData.fromString} makes it, as most sources do) and is ASCII without
         * NUL, so that its chars are its UTF-8 bytes. That skips {@code toBytes()}, which would encode it
         * into an array kept on the record and then copy that array again. Returns false, having
         * appended nothing, for any other string, or one longer than {@code maxLength}: the general path
         * then writes or refuses it.
         */
        private boolean copyUnencoded(StringData s, BinaryCopyEncoder.Buffer out) {
            if (!(s instanceof BinaryStringData)) {
                return false;
            }
            BinaryStringData b = (BinaryStringData) s;
            String java = b.getJavaObject();
            // Once it has bytes, they are what the server must get: they need not be the Java String's
            // (a string of invalid UTF-8 caches the String it decodes into, with replacement characters).
            if (java == null || b.getBinarySection() != null || maxLength >= 0 && java.length() > maxLength) {
                return false;
            }
            return out.ascii(java);
        }

        /** Characters as the server counts them in UTF-8: every byte but a continuation byte starts one. */
        private static int characters(byte[] utf8) {
            int n = 0;
            for (byte b : utf8) {
                if ((b & 0xC0) != 0x80) {
                    n++;
                }
            }
            return n;
        }

        @Override
        void bind(RowData v, int i, PreparedStatement s, int parameter) throws SQLException {
            s.setString(parameter, v.getString(i).toString());
        }

        @Override
        String text(RowData v, int i) {
            return v.getString(i).toString();
        }
    }
}
