/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import dev.eosink.core.SinkSettings;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * The options every JDBC sink shares, as one immutable value: what to write and how ({@link
 * WriteMode}), the batch size, the marker table, the bound of prepared transactions, and the JDBC URL
 * with its driver properties when the sink connects by URL. {@link JdbcSinkBuilderBase#build()} makes
 * it once it has checked each setting and the rules between them, and hands it to the concrete
 * builder, which adds its own options. Never credentials in {@link #toString()}.
 *
 * @param <IN> the records the sink writes
 */
@PublicEvolving
public final class JdbcSinkOptions<IN> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Null: the concrete builder's data source gives the connections. */
    private final String jdbcUrl;

    private final Properties properties;
    private final WriteMode<IN> writeMode;
    private final int batchSize;
    private final SqlIdentifier markerTable;
    private final boolean createTables;
    private final int maxPreparedPerSubtask;

    private JdbcSinkOptions(Builder<IN> b) {
        this.jdbcUrl = b.jdbcUrl;
        this.properties = copy(b.properties);
        this.writeMode = Objects.requireNonNull(b.writeMode, "writeMode");
        this.batchSize = b.batchSize;
        this.markerTable = Objects.requireNonNull(b.markerTable, "markerTable");
        this.createTables = b.createTables;
        this.maxPreparedPerSubtask = b.maxPreparedPerSubtask;
        if (batchSize < 1 || maxPreparedPerSubtask < 1) {
            throw new IllegalArgumentException("batchSize and maxPreparedPerSubtask must be positive");
        }
    }

    /**
     * Options for {@code writeMode}, with the builder's defaults for the rest: no JDBC URL, batches of
     * {@value JdbcSinkBuilderBase#DEFAULT_BATCH_SIZE}, marker table {@value
     * JdbcSinkBuilderBase#DEFAULT_MARKER_TABLE} (created when missing), and {@link
     * SinkSettings#DEFAULT_MAX_PREPARED_PER_SUBTASK} prepared transactions per subtask.
     */
    public static <IN> Builder<IN> builder(WriteMode<IN> writeMode) {
        return new Builder<>(writeMode);
    }

    private static Properties copy(Properties properties) {
        Properties copy = new Properties();
        copy.putAll(properties);
        return copy;
    }

    /** The JDBC URL; empty when the concrete builder's data source gives the connections. */
    public Optional<String> jdbcUrl() {
        return Optional.ofNullable(jdbcUrl);
    }

    /** A copy of the driver properties given with the URL (user, password and each property); none without one. */
    public Properties properties() {
        return copy(properties);
    }

    /** What the sink writes and how: inserts, upserts by key, or routed tables. */
    public WriteMode<IN> writeMode() {
        return writeMode;
    }

    /**
     * What each record becomes: the write mode's statement, for a sink that writes one table or the user's
     * statement. A {@link WriteMode.Routed} sink has none: the sinks that take one ask for it only after
     * refusing routed tables.
     */
    public InsertStatement<IN> statement() {
        return writeMode
                .statement()
                .orElseThrow(() -> new IllegalStateException("this sink writes "
                        + ((WriteMode.Routed<IN>) writeMode).tables().describe() + ", not one statement"));
    }

    /** Records per JDBC batch, per upsert statement, or at most held before they are sent. */
    public int batchSize() {
        return batchSize;
    }

    /** The table of the sink's marker rows, the proof of each commit. */
    public SqlIdentifier markerTable() {
        return markerTable;
    }

    /** Whether the sink creates its marker table (and its dead-letter table) when missing. */
    public boolean createTables() {
        return createTables;
    }

    /** The most prepared transactions a writer subtask may hold: what the database should have room for. */
    public int maxPreparedPerSubtask() {
        return maxPreparedPerSubtask;
    }

    /** The URL without passwords, never the properties. */
    @Override
    public String toString() {
        return "JdbcSinkOptions{" + (jdbcUrl == null ? "a data source" : JdbcUrls.redact(jdbcUrl)) + ", " + writeMode
                + ", batchSize=" + batchSize + ", markerTable=" + markerTable + ", createTables=" + createTables
                + ", maxPreparedPerSubtask=" + maxPreparedPerSubtask + "}";
    }

    /** Sets each option once; {@link #build()} makes the value. Not thread-safe, not reusable. */
    public static final class Builder<IN> {
        private final WriteMode<IN> writeMode;
        private String jdbcUrl;
        private Properties properties = new Properties();
        private int batchSize = JdbcSinkBuilderBase.DEFAULT_BATCH_SIZE;
        private SqlIdentifier markerTable = new SqlIdentifier(null, JdbcSinkBuilderBase.DEFAULT_MARKER_TABLE);
        private boolean createTables = true;
        private int maxPreparedPerSubtask = SinkSettings.DEFAULT_MAX_PREPARED_PER_SUBTASK;

        private Builder(WriteMode<IN> writeMode) {
            this.writeMode = writeMode;
        }

        /** Connections by {@code url}, with the driver {@code properties} (credentials among them). */
        public Builder<IN> jdbcUrl(String url, Properties properties) {
            this.jdbcUrl = Objects.requireNonNull(url, "url");
            this.properties = copy(properties);
            return this;
        }

        /** Records per JDBC batch; {@link #build()} throws {@link IllegalArgumentException} unless it is at least 1. */
        public Builder<IN> batchSize(int records) {
            this.batchSize = records;
            return this;
        }

        /** The table of the sink's marker rows; {@link #build()} throws {@link NullPointerException} for null. */
        public Builder<IN> markerTable(SqlIdentifier table) {
            this.markerTable = table;
            return this;
        }

        /** Whether the sink creates its marker table (and its dead-letter table) when missing. */
        public Builder<IN> createTables(boolean create) {
            this.createTables = create;
            return this;
        }

        /**
         * Prepared, not yet committed transactions one writer subtask may hold; {@link #build()} throws {@link
         * IllegalArgumentException} unless it is at least 1 (the sink's builders ask for at least 2).
         */
        public Builder<IN> maxPreparedPerSubtask(int transactions) {
            this.maxPreparedPerSubtask = transactions;
            return this;
        }

        /**
         * The options as set. Throws {@link NullPointerException} for a null write mode or marker table, {@link
         * IllegalArgumentException} for a batch size or bound below 1.
         */
        public JdbcSinkOptions<IN> build() {
            return new JdbcSinkOptions<>(this);
        }
    }
}
