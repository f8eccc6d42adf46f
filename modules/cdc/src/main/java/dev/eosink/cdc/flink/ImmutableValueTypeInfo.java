/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.io.Serializable;
import java.util.Objects;

/**
 * The type of a stream or a state of this module's immutable values, serialized by {@link ImmutableValueSerializer}.
 * Not a key type: nothing keys a stream by a whole event.
 */
final class ImmutableValueTypeInfo<T extends Serializable> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;

    ImmutableValueTypeInfo(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return new ImmutableValueSerializer<>(type);
    }

    /**
     * Flink 1.20's abstract form of {@link #createSerializer(SerializerConfig)}, which Flink 2 dropped: without an
     * {@code @Override}, one source compiles on both lines.
     */
    @SuppressWarnings("deprecation")
    public TypeSerializer<T> createSerializer(ExecutionConfig config) {
        return new ImmutableValueSerializer<>(type);
    }

    @Override
    public String toString() {
        return "ImmutableValue<" + type.getName() + ">";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImmutableValueTypeInfo<?> other && other.canEqual(this) && type.equals(other.type);
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof ImmutableValueTypeInfo<?>;
    }
}
