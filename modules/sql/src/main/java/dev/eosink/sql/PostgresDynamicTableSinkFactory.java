/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.postgres.PostgresSink;
import dev.eosink.postgres.PostgresSinkBuilder;
import dev.eosink.postgres.table.PostgresRowDataSink;
import dev.eosink.sql.internal.CommonOptions;
import dev.eosink.sql.internal.ExactlyOnceTableSink;
import dev.eosink.sql.internal.TableColumns;
import dev.eosink.sql.internal.TableOptions;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;

import java.util.Set;

/**
 * {@code 'connector' = 'eosink-postgres'}: a table written exactly once into PostgreSQL by the sink of
 * {@link PostgresSink#builder()}, whose options it takes ({@link JdbcTableOptions}, {@link
 * PostgresTableOptions}, {@code sink.parallelism}).
 *
 * <p>Without a primary key the table takes inserts only. With {@code PRIMARY KEY (...) NOT ENFORCED}
 * it upserts: INSERT and UPDATE_AFTER rows upsert their key, DELETE rows delete it, and so do
 * UPDATE_BEFORE rows, which the table does not ask for but the planner sends after a filter on an
 * updating result (such as {@code HAVING}): one without its UPDATE_AFTER is a key leaving the result.
 * The last row of a key wins, so an UPDATE_BEFORE followed by its UPDATE_AFTER ends as that; when a
 * checkpoint falls between them, that checkpoint commits the key deleted. The database table needs
 * a unique index on exactly the key's columns (checked when the job starts), and the sink keys its
 * input by the primary key, so that one writer subtask owns each key.
 *
 * <p>Everything the builder checks is checked when the table is planned: a refusal is a {@code
 * ValidationException} naming the table, the option, its value and what is allowed (never the
 * password's value). What needs the database is checked when the job starts.
 */
@PublicEvolving
public final class PostgresDynamicTableSinkFactory implements DynamicTableSinkFactory {

    /** The value of {@code 'connector'}. */
    public static final String IDENTIFIER = "eosink-postgres";

    /** The factory Flink finds through {@code META-INF/services} for {@code 'connector' = 'eosink-postgres'}. */
    public PostgresDynamicTableSinkFactory() {}

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return CommonOptions.required();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return CommonOptions.optional(
                PostgresTableOptions.WRITE_METHOD,
                PostgresTableOptions.COPY_MAX_BACKLOG,
                PostgresTableOptions.NETWORK_TIMEOUT);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        TableOptions options = TableOptions.validated(this, context);
        TableColumns columns = TableColumns.of(context);
        PostgresSinkBuilder<RowData> builder;
        try {
            // Each field straight into binary COPY or the statements' parameters; the types are checked
            // against the table's columns when each writer starts.
            builder = PostgresRowDataSink.builder(columns.rowType());
        } catch (IllegalArgumentException e) {
            throw options.refused(e.getMessage());
        }
        CommonOptions.apply(options, builder);
        options.set(PostgresTableOptions.WRITE_METHOD, builder::writeMethod);
        options.set(PostgresTableOptions.COPY_MAX_BACKLOG, size -> builder.maxCopyBacklog(size.getBytes()));
        options.set(PostgresTableOptions.NETWORK_TIMEOUT, builder::networkTimeout);
        CommonOptions.upsertByPrimaryKey(options, builder, columns);
        ExactlyOnceSink<RowData> sink = options.build(builder::build);
        return new ExactlyOnceTableSink(
                sink,
                columns,
                options.parallelism(),
                CommonOptions.summary(IDENTIFIER, options, columns),
                CommonOptions.operatorName(IDENTIFIER, options));
    }
}
