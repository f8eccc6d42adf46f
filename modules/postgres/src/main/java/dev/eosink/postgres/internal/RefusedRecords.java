package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.Objects;

/**
 * What becomes of a record the database refuses for its data, or that the row mapper cannot turn
 * into a row: by default it fails the epoch; with a dead-letter table it is kept there, in the
 * epoch's own transaction (see {@link DeadLetters}).
 */
@Internal
public sealed interface RefusedRecords extends Serializable
        permits RefusedRecords.FailTheEpoch, RefusedRecords.DeadLetterTable {

    static RefusedRecords failTheEpoch() {
        return new FailTheEpoch();
    }

    static RefusedRecords deadLetterTable(SqlIdentifier table) {
        return new DeadLetterTable(table);
    }

    /** The default: the epoch fails with a message that names the record, and nothing of it commits. */
    record FailTheEpoch() implements RefusedRecords {}

    /** Kept in {@code table} with the database's error; the rest of the epoch commits. */
    record DeadLetterTable(SqlIdentifier table) implements RefusedRecords {
        public DeadLetterTable {
            Objects.requireNonNull(table, "table");
        }
    }
}
