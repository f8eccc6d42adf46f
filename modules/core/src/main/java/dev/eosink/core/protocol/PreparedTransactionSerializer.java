/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * Versioned serializer of {@link PreparedTransaction}. Version 1: the transaction id as its string
 * form, rows, prepared-at millis. A future version must keep reading version 1: checkpoints and
 * savepoints outlive releases.
 */
@Internal
public final class PreparedTransactionSerializer implements SimpleVersionedSerializer<PreparedTransaction> {

    static final int VERSION_1 = 1;

    @Override
    public int getVersion() {
        return VERSION_1;
    }

    @Override
    public byte[] serialize(PreparedTransaction tx) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(tx.id().toString());
            out.writeLong(tx.rows());
            out.writeLong(tx.preparedAtMillis());
        }
        return bytes.toByteArray();
    }

    @Override
    public PreparedTransaction deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1) {
            throw new IOException("Unknown version "
                    + version
                    + " of eosink's committable (this release reads version "
                    + VERSION_1
                    + "): the checkpoint was written by a newer release of eosink. "
                    + "Restore it with that release.");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            String name = in.readUTF();
            TransactionId id = TransactionId.parse(name)
                    .orElseThrow(() -> new IOException("Corrupt committable: bad transaction id '" + name + "'"));
            long rows = in.readLong();
            long preparedAt = in.readLong();
            if (in.available() != 0) {
                throw new IOException("Corrupt committable for " + name + ": trailing bytes");
            }
            return new PreparedTransaction(id, rows, preparedAt);
        }
    }
}
