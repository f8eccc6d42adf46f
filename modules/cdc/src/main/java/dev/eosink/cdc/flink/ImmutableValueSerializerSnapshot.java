/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;
import java.io.Serializable;

/**
 * What a checkpoint records of an {@link ImmutableValueSerializer}: the value's class, by name. Public with a public
 * no-argument constructor because Flink creates it by reflection when it reads a checkpoint; not API.
 *
 * <p>The serializer of the same class reads the state as it is: Java serialization carries each value's own class
 * description, and the values' {@code serialVersionUID}s say whether a newer class still reads an older form.
 */
@Internal
public final class ImmutableValueSerializerSnapshot<T extends Serializable> implements TypeSerializerSnapshot<T> {

    private static final int VERSION = 1;

    /** Null only between Flink's reflective construction and {@link #readSnapshot}. */
    private Class<T> type;

    /** For Flink, which reads the class from the checkpoint next. */
    public ImmutableValueSerializerSnapshot() {}

    ImmutableValueSerializerSnapshot(Class<T> type) {
        this.type = type;
    }

    @Override
    public int getCurrentVersion() {
        return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        out.writeUTF(type.getName());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader) throws IOException {
        if (readVersion != VERSION) {
            throw new IOException("an ImmutableValueSerializer snapshot of version " + readVersion
                    + ", which this version of eosink-cdc (" + VERSION + ") does not know");
        }
        String name = in.readUTF();
        try {
            type = (Class<T>) Class.forName(name, false, userCodeClassLoader);
        } catch (ClassNotFoundException e) {
            throw new IOException("the checkpoint holds state of class " + name + ", which the job does not have", e);
        }
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
        return new ImmutableValueSerializer<>(type);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
        return oldSnapshot instanceof ImmutableValueSerializerSnapshot<T> old && type.equals(old.type)
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.incompatible();
    }
}
