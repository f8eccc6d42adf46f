package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.Objects;

/**
 * The committable: a transaction that a writer prepared at a checkpoint barrier and that Flink keeps
 * in checkpoint state until the checkpoint completes. A value, like everything that goes into state:
 * checkpoints hold it in the form {@link PreparedTransactionSerializer} writes, field by field.
 *
 * @param id the prepared transaction's name
 * @param rows rows written in the transaction, for logs and metrics
 * @param preparedAtMillis when the writer prepared it (epoch millis), to report commit latency
 */
@Internal
public record PreparedTransaction(TransactionId id, long rows, long preparedAtMillis) implements Serializable {

    private static final long serialVersionUID = 1L;

    public PreparedTransaction {
        Objects.requireNonNull(id, "id");
    }

    /** Flink prints committables in its own commit errors: keep the transaction id first. */
    @Override
    public String toString() {
        return "PreparedTransaction{" + id + ", rows=" + rows + ", preparedAt=" + preparedAtMillis + "}";
    }
}
