/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.Optional;
import java.util.UUID;

/**
 * The Debezium types this module reads, each with the Java type its values have in a {@link Row}. A column's type is
 * its schema's logical {@code name} when it has one, else its Kafka Connect {@code type}; any other logical name is
 * refused when the event is parsed ({@link ChangeEventFormatException}), naming the converter setting that avoids it.
 *
 * <p>Temporal values without a zone are read as Debezium writes them: a count since the epoch (or since midnight)
 * of a local date-time, never shifted by any time zone.
 */
@PublicEvolving
public enum ColumnType {
    /** Kafka Connect's {@code int8}: a {@link Byte}. */
    INT8("int8", null, Byte.class),
    /** Kafka Connect's {@code int16}: a {@link Short}. */
    INT16("int16", null, Short.class),
    /** Kafka Connect's {@code int32}: an {@link Integer}. */
    INT32("int32", null, Integer.class),
    /** Kafka Connect's {@code int64}: a {@link Long}. */
    INT64("int64", null, Long.class),
    /** Kafka Connect's {@code float32}: a {@link Float}. */
    FLOAT32("float32", null, Float.class),
    /** Kafka Connect's {@code float64}: a {@link Double}. */
    FLOAT64("float64", null, Double.class),
    /** Kafka Connect's {@code boolean}: a {@link Boolean}. */
    BOOLEAN("boolean", null, Boolean.class),
    /** Kafka Connect's {@code string} without a logical name: a {@link String}. */
    STRING("string", null, String.class),
    /** Base64 in JSON ({@code binary.handling.mode=bytes}, the default); a copy of the bytes on every read. */
    BYTES("bytes", null, byte[].class),
    /** Kafka Connect's decimal: base64 of the unscaled value, the scale in the schema's {@code scale} parameter. */
    DECIMAL("bytes", "org.apache.kafka.connect.data.Decimal", BigDecimal.class),
    /** Debezium's decimal of a column without a fixed scale: a struct of {@code scale} and base64 {@code value}. */
    VARIABLE_SCALE_DECIMAL("struct", "io.debezium.data.VariableScaleDecimal", BigDecimal.class),
    /** Days since 1970-01-01. */
    DATE("int32", "io.debezium.time.Date", LocalDate.class),
    /** Milliseconds since midnight. */
    TIME_MILLIS("int32", "io.debezium.time.Time", LocalTime.class),
    /** Microseconds since midnight. */
    TIME_MICROS("int64", "io.debezium.time.MicroTime", LocalTime.class),
    /** Nanoseconds since midnight. */
    TIME_NANOS("int64", "io.debezium.time.NanoTime", LocalTime.class),
    /** Milliseconds since the epoch of a local date-time. */
    TIMESTAMP_MILLIS("int64", "io.debezium.time.Timestamp", LocalDateTime.class),
    /** Microseconds since the epoch of a local date-time. */
    TIMESTAMP_MICROS("int64", "io.debezium.time.MicroTimestamp", LocalDateTime.class),
    /** Nanoseconds since the epoch of a local date-time. */
    TIMESTAMP_NANOS("int64", "io.debezium.time.NanoTimestamp", LocalDateTime.class),
    /** ISO-8601 text with an offset ({@code 2026-01-02T03:04:05.123456Z}). */
    ZONED_TIMESTAMP("string", "io.debezium.time.ZonedTimestamp", OffsetDateTime.class),
    /** ISO-8601 text with an offset ({@code 03:04:05.123456Z}). */
    ZONED_TIME("string", "io.debezium.time.ZonedTime", OffsetTime.class),
    /** JSON text, as the source database wrote it. */
    JSON("string", "io.debezium.data.Json", String.class),
    /** Debezium's {@code io.debezium.data.Uuid}, a string in the event: a {@link java.util.UUID}. */
    UUID("string", "io.debezium.data.Uuid", UUID.class),
    /** The label; the schema's {@code allowed} parameter lists the labels. */
    ENUM("string", "io.debezium.data.Enum", String.class),
    /** Kafka Connect's date ({@code time.precision.mode=connect}): days since 1970-01-01. */
    CONNECT_DATE("int32", "org.apache.kafka.connect.data.Date", LocalDate.class),
    /** Kafka Connect's time ({@code time.precision.mode=connect}): milliseconds since midnight. */
    CONNECT_TIME("int32", "org.apache.kafka.connect.data.Time", LocalTime.class),
    /** Kafka Connect's timestamp ({@code time.precision.mode=connect}): milliseconds since the epoch. */
    CONNECT_TIMESTAMP("int64", "org.apache.kafka.connect.data.Timestamp", LocalDateTime.class);

    private final String connectType;
    /** Null for a plain Connect type. */
    private final String logicalName;

    private final Class<?> javaType;

    ColumnType(String connectType, String logicalName, Class<?> javaType) {
        this.connectType = connectType;
        this.logicalName = logicalName;
        this.javaType = javaType;
    }

    /** The Kafka Connect type of the schema: {@code int32}, {@code bytes}, {@code struct}, ... */
    public String connectType() {
        return connectType;
    }

    /** The schema's logical {@code name}; empty for a plain Connect type. */
    public Optional<String> logicalName() {
        return Optional.ofNullable(logicalName);
    }

    /** The class of this type's values in a {@link Row}. */
    public Class<?> javaType() {
        return javaType;
    }

    /** The type of a logical name this module reads; empty for any other name. */
    public static Optional<ColumnType> ofLogicalName(String name) {
        for (ColumnType type : values()) {
            if (name.equals(type.logicalName)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    /** The type of a plain Connect type (one without a logical name); empty for struct, array and map. */
    public static Optional<ColumnType> ofConnectType(String connectType) {
        for (ColumnType type : values()) {
            if (type.logicalName == null && type.connectType.equals(connectType)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
