package dev.eosink.postgres.internal;

import dev.eosink.postgres.RowKindFunction;

import org.apache.flink.annotation.Internal;
import org.apache.flink.types.RowKind;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * What a record does to the target: it is inserted, or it is upserted (or deleted) by key. The
 * builder allows {@link Upsert} only with a table and columns, and only with key columns among them.
 *
 * @param <IN> the records the sink writes
 */
@Internal
public sealed interface RowAction<IN> extends Serializable permits RowAction.Insert, RowAction.Upsert {

    static <IN> RowAction<IN> insert() {
        return new Insert<>();
    }

    /** Upserts by {@code key}; {@code rowKind} tells deletes, as the builder's changelog(...) gives it. */
    static <IN> RowAction<IN> upsert(List<String> key, RowKindFunction<IN> rowKind) {
        return new Upsert<>(key, rowKind);
    }

    /** Upserts by {@code key}, without a changelog: every record is an INSERT, upserted. */
    static <IN> RowAction<IN> upsert(List<String> key) {
        return new Upsert<>(key, record -> RowKind.INSERT);
    }

    /** Every record is inserted: a row of the table's columns, or the user's SQL. */
    record Insert<IN>() implements RowAction<IN> {}

    /**
     * {@code INSERT ... ON CONFLICT (key) DO UPDATE} of every other column, or a delete by key where
     * {@code rowKind} says DELETE.
     */
    record Upsert<IN>(List<String> key, RowKindFunction<IN> rowKind) implements RowAction<IN> {
        public Upsert {
            key = List.copyOf(key);
            Objects.requireNonNull(rowKind, "rowKind");
        }
    }
}
