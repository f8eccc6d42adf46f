package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import java.io.Serializable;
import java.util.Objects;

/**
 * The committable: a transaction that a writer prepared at a checkpoint barrier and that Flink keeps
 * in checkpoint state until the checkpoint completes. Small and immutable, like every value that
 * goes into state.
 */
public final class PreparedTransaction implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TransactionId id;
    private final long rows;
    private final long preparedAtMillis;

    public PreparedTransaction(TransactionId id, long rows, long preparedAtMillis) {
        this.id = Objects.requireNonNull(id, "id");
        this.rows = rows;
        this.preparedAtMillis = preparedAtMillis;
    }

    public TransactionId id() {
        return id;
    }

    /** Rows written in the transaction, for logs and metrics. */
    public long rows() {
        return rows;
    }

    /** When the writer prepared it (epoch millis), to report commit latency. */
    public long preparedAtMillis() {
        return preparedAtMillis;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PreparedTransaction)) {
            return false;
        }
        PreparedTransaction that = (PreparedTransaction) o;
        return rows == that.rows && preparedAtMillis == that.preparedAtMillis && id.equals(that.id);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, rows, preparedAtMillis);
    }

    /** Flink prints committables in its own commit errors: keep the transaction id first. */
    @Override
    public String toString() {
        return "PreparedTransaction{" + id + ", rows=" + rows + ", preparedAt=" + preparedAtMillis + "}";
    }
}
