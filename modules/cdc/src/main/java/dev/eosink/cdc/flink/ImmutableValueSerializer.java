/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.Objects;

/**
 * Flink's serializer for this module's immutable values: each written as its length and its Java serialization,
 * never copied (an immutable value is its own copy).
 *
 * <p>Why not Flink's default for such a class, Kryo: the values hold unmodifiable collections (a {@code Row}'s
 * columns, an END's per-table counts, a position's fields), which Kryo rebuilds by adding to an empty instance, and
 * an unmodifiable collection refuses that, so Kryo can neither copy nor read them back. Java serialization is the
 * form the values were written for: each is {@link Serializable} with a fixed {@code serialVersionUID}.
 *
 * <p>Only for values that never change after construction: {@link #isImmutableType()} lets Flink (and the heap state
 * backend's snapshots) share one instance between records and checkpoints.
 */
final class ImmutableValueSerializer<T extends Serializable> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;

    ImmutableValueSerializer(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    Class<T> type() {
        return type;
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<T> duplicate() {
        return this; // no state of its own
    }

    @Override
    public T createInstance() {
        return null; // immutable values are never reused
    }

    @Override
    public T copy(T from) {
        return from;
    }

    @Override
    public T copy(T from, T reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(T record, DataOutputView target) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream objects = new ObjectOutputStream(bytes)) {
            objects.writeObject(record);
        }
        target.writeInt(bytes.size());
        bytes.writeTo(new DataOutputViewStream(target));
    }

    @Override
    public T deserialize(DataInputView source) throws IOException {
        byte[] bytes = new byte[source.readInt()];
        source.readFully(bytes);
        try (ObjectInputStream objects = new TypeLoaderObjectInputStream(new ByteArrayInputStream(bytes), type)) {
            return type.cast(objects.readObject());
        } catch (ClassNotFoundException e) {
            throw new IOException("cannot read a " + type.getName() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        byte[] bytes = new byte[source.readInt()];
        source.readFully(bytes);
        // Through an array: DataOutputSerializer.write(DataInputView, int) does not grow its buffer.
        target.writeInt(bytes.length);
        target.write(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImmutableValueSerializer<?> other && type.equals(other.type);
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<T> snapshotConfiguration() {
        return new ImmutableValueSerializerSnapshot<>(type);
    }

    @Override
    public String toString() {
        return "ImmutableValueSerializer(" + type.getName() + ")";
    }

    /**
     * Resolves classes by the loader of the value's type: on a cluster that is the job's class loader (or the one of
     * Flink's lib, where the job put this module), whichever thread reads; Java's default would take the loader of
     * the first class on the caller's stack that is not the JDK's, which may be Flink's own.
     */
    private static final class TypeLoaderObjectInputStream extends ObjectInputStream {
        private final ClassLoader loader;

        TypeLoaderObjectInputStream(InputStream in, Class<?> type) throws IOException {
            super(in);
            this.loader = type.getClassLoader();
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass description) throws IOException, ClassNotFoundException {
            try {
                return Class.forName(description.getName(), false, loader);
            } catch (ClassNotFoundException e) {
                return super.resolveClass(description); // primitive types, which no loader knows by name
            }
        }
    }

    /** A {@link DataOutputView} as an {@link java.io.OutputStream}, for {@link ByteArrayOutputStream#writeTo}. */
    private static final class DataOutputViewStream extends java.io.OutputStream {
        private final DataOutputView target;

        DataOutputViewStream(DataOutputView target) {
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            target.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target.write(b, off, len);
        }
    }
}
