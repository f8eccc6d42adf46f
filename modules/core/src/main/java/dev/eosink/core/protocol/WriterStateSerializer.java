/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * Versioned serializer of {@link WriterState}.
 *
 * <ul>
 *   <li>Version 1: sink id, subtask, checkpoint id. Still read: a writer restored from it has no lineage.
 *   <li>Version 2: version 1, then the run token, the parallelism and the snapshot time (epoch millis).
 *   <li>Version 3: version 2, then the length of the session's carried writes and their bytes (0: none).
 * </ul>
 */
@Internal
public final class WriterStateSerializer implements SimpleVersionedSerializer<WriterState> {

    static final int VERSION_1 = 1;
    static final int VERSION_2 = 2;
    static final int VERSION_3 = 3;

    @Override
    public int getVersion() {
        return VERSION_3;
    }

    @Override
    public byte[] serialize(WriterState state) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(state.sinkId());
            out.writeInt(state.subtask());
            out.writeLong(state.checkpointId());
            WriterState.Lineage lineage = state.lineage()
                    .orElseThrow(() -> new IOException("writer state without lineage cannot be written: " + state));
            out.writeUTF(lineage.run());
            out.writeInt(lineage.parallelism());
            out.writeLong(lineage.snapshotAtMillis());
            byte[] carried = state.carried();
            out.writeInt(carried.length);
            out.write(carried);
        }
        return bytes.toByteArray();
    }

    @Override
    public WriterState deserialize(int version, byte[] serialized) throws IOException {
        if (version < VERSION_1 || version > VERSION_3) {
            throw new IOException("Unknown version "
                    + version
                    + " of eosink's writer state (this release reads versions "
                    + VERSION_1
                    + " to "
                    + VERSION_3
                    + "): the checkpoint was written by a newer release of eosink. "
                    + "Restore it with that release.");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            String sinkId = in.readUTF();
            int subtask = in.readInt();
            long checkpointId = in.readLong();
            WriterState state;
            if (version == VERSION_1) {
                state = WriterState.withoutLineage(sinkId, subtask, checkpointId);
            } else {
                String run = in.readUTF();
                int parallelism = in.readInt();
                long snapshotAt = in.readLong();
                byte[] carried = new byte[0];
                if (version >= VERSION_3) {
                    int length = in.readInt();
                    if (length < 0 || length > in.available()) {
                        throw new IOException("Corrupt writer state of sink " + sinkId + ", subtask " + subtask
                                + ", checkpoint " + checkpointId + ": " + length
                                + " bytes of carried writes announced, "
                                + in.available() + " left");
                    }
                    carried = in.readNBytes(length);
                }
                state = new WriterState(
                        sinkId, subtask, checkpointId, new WriterState.Lineage(run, parallelism, snapshotAt), carried);
            }
            if (in.available() != 0) {
                throw new IOException("Corrupt writer state " + state + ": trailing bytes");
            }
            return state;
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt writer state (version " + version + "): " + e.getMessage(), e);
        }
    }
}
