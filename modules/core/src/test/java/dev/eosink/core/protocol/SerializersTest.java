/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.WriterState.Lineage;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SerializersTest {

    private final PreparedTransactionSerializer committables = new PreparedTransactionSerializer();
    private final WriterStateSerializer states = new WriterStateSerializer();

    @Test
    void committableRoundTrips() throws IOException {
        PreparedTransaction tx =
                new PreparedTransaction(new TransactionId("orders", 3, 42, "abcd1234"), 1000, 1_700_000_000_000L);
        byte[] bytes = committables.serialize(tx);
        assertThat(committables.deserialize(committables.getVersion(), bytes)).isEqualTo(tx);
    }

    @Test
    void committableOfUnknownVersionIsRejectedWithRemedy() throws IOException {
        byte[] bytes = committables.serialize(new PreparedTransaction(new TransactionId("o", 0, 1, "abcd1234"), 1, 1));
        assertThatThrownBy(() -> committables.deserialize(99, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 99")
                .hasMessageContaining("newer release");
    }

    @Test
    void corruptCommittableIsRejected() {
        assertThatThrownBy(() -> committables.deserialize(1, new byte[] {0, 3, 'a', 'b', 'c'}))
                .isInstanceOf(IOException.class);
    }

    /** Version 1 bytes as written by this release: a future release must still read them. */
    @Test
    void committableVersion1LayoutIsStable() throws IOException {
        PreparedTransaction tx = new PreparedTransaction(new TransactionId("s", 1, 2, "abcd1234"), 3, 4);
        byte[] bytes = committables.serialize(tx);
        String name = "eos1/s/1/2/abcd1234";
        assertThat(bytes.length).isEqualTo(2 + name.length() + 8 + 8);
        assertThat(new String(bytes, 2, name.length(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(name);
    }

    /**
     * The exact bytes checkpoints hold: the serializers write every field explicitly, so a change of
     * the classes they write (fields, records) must leave these untouched.
     */
    @Test
    void serializedFormsAreTheCheckpointedBytes() throws IOException {
        PreparedTransaction tx =
                new PreparedTransaction(new TransactionId("orders", 3, 42, "abcd1234"), 1000, 1_700_000_000_000L);
        assertThat(HexFormat.of().formatHex(committables.serialize(tx)))
                .isEqualTo("0019656f73312f6f72646572732f332f34322f616263643132333400000000000003e80000018bcfe56800");
        WriterState state = new WriterState("orders", 2, 77, new Lineage("abcd1234", 4, 1_700_000_000_000L));
        assertThat(HexFormat.of().formatHex(states.serialize(state)))
                .isEqualTo(
                        "00066f726465727300000002000000000000004d00086162636431323334000000040000018bcfe5680000000000");
        WriterState carrying =
                new WriterState("orders", 2, 77, new Lineage("abcd1234", 4, 1_700_000_000_000L), new byte[] {7, 8});
        assertThat(HexFormat.of().formatHex(states.serialize(carrying)))
                .isEqualTo(
                        "00066f726465727300000002000000000000004d00086162636431323334000000040000018bcfe56800000000020708");
    }

    @Test
    void writerStateRoundTrips() throws IOException {
        WriterState state = new WriterState("orders", 2, 77, new Lineage("abcd1234", 4, 1_700_000_000_000L));
        assertThat(states.deserialize(states.getVersion(), states.serialize(state)))
                .isEqualTo(state);
        WriterState carrying =
                new WriterState("orders", 2, 77, new Lineage("abcd1234", 4, 1_700_000_000_000L), new byte[] {1, 2, 3});
        WriterState read = states.deserialize(states.getVersion(), states.serialize(carrying));
        assertThat(read).isEqualTo(carrying);
        assertThat(read.carries()).isTrue();
        assertThat(read.carried()).containsExactly(1, 2, 3);
        assertThat(states.getVersion()).isEqualTo(3);
    }

    /** Checkpoints of the releases before carried writes hold version 2: still read, carrying nothing. */
    @Test
    void writerStateVersion2IsReadCarryingNothing() throws IOException {
        byte[] v2 = HexFormat.of()
                .parseHex("00066f726465727300000002000000000000004d00086162636431323334000000040000018bcfe56800");
        WriterState state = states.deserialize(2, v2);
        assertThat(state).isEqualTo(new WriterState("orders", 2, 77, new Lineage("abcd1234", 4, 1_700_000_000_000L)));
        assertThat(state.carries()).isFalse();
    }

    /** Checkpoints of the first release hold version 1 (sink id, subtask, checkpoint): still read, without lineage. */
    @Test
    void writerStateVersion1IsReadWithoutLineage() throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeUTF("orders");
            out.writeInt(2);
            out.writeLong(77);
        }
        WriterState state = states.deserialize(1, bytes.toByteArray());
        assertThat(state).isEqualTo(WriterState.withoutLineage("orders", 2, 77));
        assertThat(state.run()).isEmpty();
        assertThat(state.parallelism()).isEmpty();
        assertThat(state.snapshotAtMillis()).isEmpty();
    }

    @Test
    void writerStateOfUnknownVersionIsRejected() throws IOException {
        byte[] bytes = states.serialize(new WriterState("orders", 2, 77, new Lineage("abcd1234", 1, 1L)));
        assertThatThrownBy(() -> states.deserialize(4, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 4")
                .hasMessageContaining("newer release");
    }

    @Test
    void corruptWriterStateIsRejected() throws IOException {
        byte[] bytes = states.serialize(new WriterState("orders", 2, 77, new Lineage("abcd1234", 1, 1L)));
        assertThatThrownBy(() -> states.deserialize(1, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("trailing");
        byte[] truncated = java.util.Arrays.copyOf(
                states.serialize(
                        new WriterState("orders", 2, 77, new Lineage("abcd1234", 1, 1L), new byte[] {1, 2, 3})),
                bytes.length + 1);
        assertThatThrownBy(() -> states.deserialize(3, truncated))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("3 bytes of carried writes announced, 1 left");
    }
}
