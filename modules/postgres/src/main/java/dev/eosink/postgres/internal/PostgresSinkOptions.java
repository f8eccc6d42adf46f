/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.postgres.WriteMethod;
import dev.eosink.postgres.row.RowFormat;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a PostgreSQL sink is configured with, as one immutable value: made by {@code
 * PostgresSinkBuilder}, which has checked each setting and the rules between them, shipped with the
 * job, and read by the writer's {@link Preflight}, its session and the committer. A feature that is
 * off is a type of its own ({@link RowAction.Insert}, {@link RefusedRecords.FailTheEpoch}), never null.
 *
 * @param <IN> the records the sink writes
 */
@Internal
public final class PostgresSinkOptions<IN> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final PostgresConnection connection;
    private final PostgresTarget<IN> target;
    /** How a table's records become rows; null exactly when the statement is the user's SQL. */
    private final RowFormat<IN, ?> rowFormat;

    private final MarkerTable markers;
    private final boolean createTables;
    private final int batchSize;
    private final WriteMethod writeMethod;
    private final RowAction<IN> rowAction;
    private final Duration networkTimeout;
    private final RefusedRecords refusedRecords;
    private final long maxCopyBacklog;
    private final int maxPreparedPerSubtask;

    private PostgresSinkOptions(Builder<IN> b) {
        this.connection = Objects.requireNonNull(b.connection, "connection");
        this.target = Objects.requireNonNull(b.target, "target");
        if (target instanceof PostgresTarget.OneStatement<IN> one
                && one.statement() instanceof InsertStatement.Columns<IN> table) {
            this.rowFormat = b.rowFormat != null ? b.rowFormat : new MappedRows<>(table);
        } else if (b.rowFormat != null) {
            throw new IllegalArgumentException("a row format is for a table's columns, not the user's SQL or routes");
        } else {
            this.rowFormat = null;
        }
        this.markers = Objects.requireNonNull(b.markers, "markers");
        this.createTables = b.createTables;
        this.batchSize = b.batchSize;
        this.writeMethod = Objects.requireNonNull(b.writeMethod, "writeMethod");
        this.rowAction = b.rowAction;
        this.networkTimeout = Objects.requireNonNull(b.networkTimeout, "networkTimeout");
        this.refusedRecords = b.refusedRecords;
        this.maxCopyBacklog = b.maxCopyBacklog;
        this.maxPreparedPerSubtask = b.maxPreparedPerSubtask;
        if (batchSize < 1 || maxPreparedPerSubtask < 1) {
            throw new IllegalArgumentException("batchSize and maxPreparedPerSubtask must be positive");
        }
    }

    /**
     * Options for writing {@code statement} through {@code connection}, with {@code markers}; the
     * builder's other settings are the builder's to give (it starts with inserts, refused records
     * failing the epoch, and nothing else set).
     */
    public static <IN> Builder<IN> builder(
            PostgresConnection connection, InsertStatement<IN> statement, MarkerTable markers) {
        return new Builder<>(connection, new PostgresTarget.OneStatement<>(statement), markers);
    }

    /** Options of a sink that writes {@code target}. */
    public static <IN> Builder<IN> builder(
            PostgresConnection connection, PostgresTarget<IN> target, MarkerTable markers) {
        return new Builder<>(connection, target, markers);
    }

    /** How the sink reaches PostgreSQL. */
    public PostgresConnection connection() {
        return connection;
    }

    /** What the sink writes: a table's rows, the user's statement, or routed tables. */
    public PostgresTarget<IN> target() {
        return target;
    }

    /**
     * How the records become rows of the table's columns: the format given to the builder, else the
     * rows of the statement's row mapper. Empty for the user's SQL, which binds records itself.
     */
    public Optional<RowFormat<IN, ?>> rowFormat() {
        return Optional.ofNullable(rowFormat);
    }

    public MarkerTable markers() {
        return markers;
    }

    /** Whether the sink creates its marker table and dead-letter table when they are missing. */
    public boolean createTables() {
        return createTables;
    }

    /** Records per JDBC batch, and rows per COPY send at the most. */
    public int batchSize() {
        return batchSize;
    }

    /** How inserts into a table travel when nothing rules COPY out. */
    public WriteMethod writeMethod() {
        return writeMethod;
    }

    public RowAction<IN> rowAction() {
        return rowAction;
    }

    /** The bound of every call into the driver during an epoch or a commit; {@link Duration#ZERO}: none. */
    public Duration networkTimeout() {
        return networkTimeout;
    }

    public RefusedRecords refusedRecords() {
        return refusedRecords;
    }

    /** COPY flow control's bound of data sent and not yet read by the server; 0: off. */
    public long maxCopyBacklog() {
        return maxCopyBacklog;
    }

    /** The most prepared transactions a writer subtask may hold: what the server should have room for. */
    public int maxPreparedPerSubtask() {
        return maxPreparedPerSubtask;
    }

    /** Sets each option once; {@link #build()} makes the value. Not thread-safe, not reusable. */
    public static final class Builder<IN> {
        private final PostgresConnection connection;
        private final PostgresTarget<IN> target;
        private final MarkerTable markers;
        private RowFormat<IN, ?> rowFormat;
        private boolean createTables;
        private int batchSize;
        private WriteMethod writeMethod;
        private RowAction<IN> rowAction = RowAction.insert();
        private Duration networkTimeout;
        private RefusedRecords refusedRecords = RefusedRecords.failTheEpoch();
        private long maxCopyBacklog;
        private int maxPreparedPerSubtask;

        private Builder(PostgresConnection connection, PostgresTarget<IN> target, MarkerTable markers) {
            this.connection = connection;
            this.target = target;
            this.markers = markers;
        }

        /**
         * How the table's records become rows, instead of the statement's row mapper (which a table
         * statement needs, but then never calls). Only with a table's columns.
         */
        public Builder<IN> rowFormat(RowFormat<IN, ?> format) {
            this.rowFormat = Objects.requireNonNull(format, "format");
            return this;
        }

        public Builder<IN> createTables(boolean create) {
            this.createTables = create;
            return this;
        }

        public Builder<IN> batchSize(int records) {
            this.batchSize = records;
            return this;
        }

        public Builder<IN> writeMethod(WriteMethod method) {
            this.writeMethod = method;
            return this;
        }

        public Builder<IN> rowAction(RowAction<IN> action) {
            this.rowAction = Objects.requireNonNull(action, "action");
            return this;
        }

        public Builder<IN> networkTimeout(Duration timeout) {
            this.networkTimeout = timeout;
            return this;
        }

        public Builder<IN> refusedRecords(RefusedRecords refused) {
            this.refusedRecords = Objects.requireNonNull(refused, "refused");
            return this;
        }

        public Builder<IN> maxCopyBacklog(long bytes) {
            this.maxCopyBacklog = bytes;
            return this;
        }

        public Builder<IN> maxPreparedPerSubtask(int transactions) {
            this.maxPreparedPerSubtask = transactions;
            return this;
        }

        /** @throws NullPointerException when the write method or the network timeout was not given */
        public PostgresSinkOptions<IN> build() {
            return new PostgresSinkOptions<>(this);
        }
    }
}
