/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One column of an embedded schema: its name, its {@link ColumnType}, whether it may be null, and the schema's
 * parameters (a decimal's {@code scale} and {@code connect.decimal.precision}, an enum's {@code allowed}, and with
 * {@code column.propagate.source.type} the source column's {@code __debezium.source.column.type}, {@code .length}
 * and {@code .scale}). Immutable.
 */
@PublicEvolving
public final class ColumnSchema implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The parameter that {@code column.propagate.source.type} adds with the source column's type name. */
    public static final String SOURCE_TYPE = "__debezium.source.column.type";
    /** The parameter that {@code column.propagate.source.type} adds with the source column's length. */
    public static final String SOURCE_LENGTH = "__debezium.source.column.length";
    /** The parameter that {@code column.propagate.source.type} adds with the source column's scale. */
    public static final String SOURCE_SCALE = "__debezium.source.column.scale";

    private final String name;
    private final ColumnType type;
    private final boolean optional;
    private final Map<String, String> parameters;

    /**
     * A column {@code name} of {@code type}, which may be null when {@code optional}, with the schema's {@code
     * parameters} (copied; none: an empty map). Throws {@link NullPointerException} for a null name, type or
     * parameters.
     */
    public ColumnSchema(String name, ColumnType type, boolean optional, Map<String, String> parameters) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.optional = optional;
        this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** The column's name, as the event gives it. */
    public String name() {
        return name;
    }

    /** The column's type, which tells the Java type of its values. */
    public ColumnType type() {
        return type;
    }

    /** Whether the column may hold null: the schema's {@code optional}. */
    public boolean optional() {
        return optional;
    }

    /** The schema's parameters, in the event's order; unmodifiable. */
    public Map<String, String> parameters() {
        return parameters;
    }

    /** One of {@link #parameters()}. */
    public Optional<String> parameter(String key) {
        return Optional.ofNullable(parameters.get(key));
    }

    /**
     * The PostgreSQL type that holds this column's values as they are, without {@code NOT NULL}: {@code integer},
     * {@code numeric(10,2)}, {@code timestamp(6)}, {@code varchar(40)}, ... (the table in docs/cdc.md).
     */
    public String postgresType() {
        return PostgresTypes.of(this);
    }

    /** {@link #postgresType()}, followed by {@code NOT NULL} for a column that is not {@link #optional()}. */
    public String postgresColumnDefinition() {
        return optional ? postgresType() : postgresType() + " NOT NULL";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnSchema other
                && name.equals(other.name)
                && type == other.type
                && optional == other.optional
                && parameters.equals(other.parameters);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type, optional, parameters);
    }

    @Override
    public String toString() {
        return name + " " + type + (optional ? "" : " not null") + (parameters.isEmpty() ? "" : " " + parameters);
    }
}
