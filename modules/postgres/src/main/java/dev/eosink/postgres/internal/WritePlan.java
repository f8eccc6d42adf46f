package dev.eosink.postgres.internal;

import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.postgres.RowKindFunction;
import dev.eosink.postgres.copy.BinaryCopyEncoder;

import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a writer session will write, as its {@link Preflight} chose it from the options and what the
 * server said: a value, with no connection of its own. {@link #open} makes the session's {@link
 * WritePath} from it, once, when the session opens.
 *
 * @param <IN> the records the sink writes
 */
sealed interface WritePlan<IN> permits WritePlan.Batch, WritePlan.Copy, WritePlan.Upsert {

    /** The session's write path, on the session's own connection. */
    WritePath<IN> open(Resources session);

    /** What a write path works with, all of it the writer session's, which closes what needs closing. */
    record Resources(SubtaskContext context, Connection connection, IoWatchdog io, CopyBacklog backlog,
            int batchSize, WriteErrors errors) {}

    /**
     * JDBC batches of {@code sql}: the generated INSERT with each parameter cast to its column's type,
     * or the user's statement as given. With a dead-letter table a refused record is kept there, and
     * the others go on (see {@link DeadLetterBatchPath}).
     */
    record Batch<IN>(InsertStatement<IN> statement, String sql, RefusedRecords refused) implements WritePlan<IN> {
        public Batch {
            Objects.requireNonNull(statement, "statement");
            Objects.requireNonNull(sql, "sql");
            Objects.requireNonNull(refused, "refused");
        }

        @Override
        public WritePath<IN> open(Resources s) {
            if (refused instanceof RefusedRecords.DeadLetterTable deadLetters) {
                return new DeadLetterBatchPath<>(s, statement, sql, new DeadLetters(deadLetters.table()));
            }
            return new BatchPath<>(s, statement, sql);
        }
    }

    /** Binary COPY of a table's rows, streamed as records arrive. */
    record Copy<IN>(InsertStatement.Columns<IN> statement, BinaryCopyEncoder encoder) implements WritePlan<IN> {
        @Override
        public WritePath<IN> open(Resources s) {
            return new CopyPath<>(s, statement, stream(s, statement, encoder));
        }
    }

    /**
     * Upserts and deletes by key ({@link UpsertWriter}); keys the subtask never wrote go by COPY with
     * {@code newKeysByCopy}'s encoder, or, without one, every record goes as a statement.
     *
     * @param casts per column, the type its text values are cast to ({@link ColumnType#cast()})
     */
    record Upsert<IN>(InsertStatement.Columns<IN> statement, List<String> casts, KeyColumns keys,
            RowKindFunction<IN> rowKind, Optional<BinaryCopyEncoder> newKeysByCopy) implements WritePlan<IN> {
        public Upsert {
            casts = List.copyOf(casts);
        }

        /** The statements' buffer: its SQL is what the preflight EXPLAINs. */
        UpsertBuffer newBuffer() {
            return new UpsertBuffer(statement.table(), statement.columns(), casts, keys);
        }

        @Override
        public WritePath<IN> open(Resources s) {
            // UpsertWriter's own convention: a null COPY stream means statements only.
            CopyStream newKeys = newKeysByCopy.map(encoder -> stream(s, statement, encoder)).orElse(null);
            UpsertWriter writer = new UpsertWriter(
                    s.connection(), s.io(), newBuffer(), newKeys, s.batchSize(), new KeyFilter());
            return new UpsertPath<>(s, statement, rowKind, writer);
        }
    }

    private static CopyStream stream(Resources s, InsertStatement.Columns<?> statement, BinaryCopyEncoder encoder) {
        return new CopyStream(
                s.connection(), s.io(), statement.table(), statement.columns(), encoder, s.batchSize(), s.backlog());
    }
}
