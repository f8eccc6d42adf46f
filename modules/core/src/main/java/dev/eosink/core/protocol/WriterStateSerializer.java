package dev.eosink.core.protocol;

import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Versioned serializer of {@link WriterState}. Version 1: sink id, subtask, checkpoint id. */
public final class WriterStateSerializer implements SimpleVersionedSerializer<WriterState> {

    static final int VERSION_1 = 1;

    @Override
    public int getVersion() {
        return VERSION_1;
    }

    @Override
    public byte[] serialize(WriterState state) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(state.sinkId());
            out.writeInt(state.subtask());
            out.writeLong(state.checkpointId());
        }
        return bytes.toByteArray();
    }

    @Override
    public WriterState deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1) {
            throw new IOException(
                    "Unknown version "
                            + version
                            + " of eosink's writer state (this release reads version "
                            + VERSION_1
                            + "): the checkpoint was written by a newer release of eosink. "
                            + "Restore it with that release.");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            WriterState state = new WriterState(in.readUTF(), in.readInt(), in.readLong());
            if (in.available() != 0) {
                throw new IOException("Corrupt writer state " + state + ": trailing bytes");
            }
            return state;
        }
    }
}
