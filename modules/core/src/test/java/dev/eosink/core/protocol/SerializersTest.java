package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import org.junit.jupiter.api.Test;

import java.io.IOException;

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
        byte[] bytes =
                committables.serialize(new PreparedTransaction(new TransactionId("o", 0, 1, "abcd1234"), 1, 1));
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
        assertThat(new String(bytes, 2, name.length(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(name);
    }

    @Test
    void writerStateRoundTrips() throws IOException {
        WriterState state = new WriterState("orders", 2, 77);
        assertThat(states.deserialize(states.getVersion(), states.serialize(state))).isEqualTo(state);
    }

    @Test
    void writerStateOfUnknownVersionIsRejected() throws IOException {
        byte[] bytes = states.serialize(new WriterState("orders", 2, 77));
        assertThatThrownBy(() -> states.deserialize(2, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 2");
    }
}
