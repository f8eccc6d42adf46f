package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.RecordText;

import org.postgresql.util.PSQLException;

import java.util.Objects;

/**
 * Where in the epoch a write failed, as far as it can honestly be told: one record, at hand or known
 * by its position only, or only the batch it was in, and why not more. Positions count from 0.
 */
sealed interface FailurePosition permits FailurePosition.Exact, FailurePosition.RowOnly, FailurePosition.InBatch {

    /** The words that follow "writing into ... failed" in the error message. */
    String describe();

    /** The record is known and at hand. */
    static FailurePosition exact(long position, Object record) {
        return new Exact(position, record);
    }

    /**
     * The row is known by its position only: a COPY error names its line, and the record was sent
     * before the sink's last records. Only some errors show the row ("Failing row contains ...",
     * NOT NULL and CHECK) or its key ("Key (...)=(...)", unique and foreign keys) in their detail;
     * a data error (a value too long, out of range) shows neither.
     */
    static FailurePosition row(long position, Exception error) {
        String detail = error instanceof PSQLException && ((PSQLException) error).getServerErrorMessage() != null
                ? ((PSQLException) error).getServerErrorMessage().getDetail()
                : null;
        String shown = detail == null ? ""
                : detail.startsWith("Failing row contains") ? "the database's detail shows the row"
                : detail.startsWith("Key (") ? "the database's detail shows its key"
                : "";
        return new RowOnly(position, shown);
    }

    /** Only the batch of records {@code first} to {@code last} is known, for the reason given. */
    static FailurePosition batch(long first, long last, String unknownBecause) {
        return new InBatch(first, last, unknownBecause);
    }

    record Exact(long position, Object record) implements FailurePosition {
        public Exact {
            Objects.requireNonNull(record, "record");
        }

        @Override
        public String describe() {
            return "at record #" + position + " of the epoch (counting from 0) " + RecordText.bracketed(record);
        }
    }

    /** @param shownByDatabase what the database's own detail shows of the row, or "" */
    record RowOnly(long position, String shownByDatabase) implements FailurePosition {
        @Override
        public String describe() {
            return "at record #" + position + " of the epoch (counting from 0; the record was sent before the database "
                    + "refused it, and the sink no longer holds it" + (shownByDatabase.isEmpty() ? "" : ": " + shownByDatabase)
                    + ")";
        }
    }

    record InBatch(long first, long last, String unknownBecause) implements FailurePosition {
        @Override
        public String describe() {
            return "in the batch of records #" + first + " to #" + last + " of the epoch (counting from 0); "
                    + "which of them the database refused is not known: " + unknownBecause;
        }
    }
}
