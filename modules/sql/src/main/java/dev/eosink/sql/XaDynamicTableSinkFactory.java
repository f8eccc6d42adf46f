/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.sql.internal.CommonOptions;
import dev.eosink.sql.internal.ExactlyOnceTableSink;
import dev.eosink.sql.internal.TableColumns;
import dev.eosink.sql.internal.TableOptions;
import dev.eosink.xa.XaSink;
import dev.eosink.xa.XaSinkBuilder;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;

import java.time.Duration;
import java.util.Set;

/**
 * {@code 'connector' = 'eosink-xa'}: a table written exactly once into an XA database (MariaDB, MySQL,
 * PostgreSQL, by the URL's scheme) by the sink of {@link XaSink#builder()}, whose options it takes
 * ({@link JdbcTableOptions}, {@link XaTableOptions}, {@code sink.parallelism}). The job brings the
 * database's JDBC driver.
 *
 * <p>Without a primary key the table takes inserts only. With {@code PRIMARY KEY (...) NOT ENFORCED}
 * it upserts on MariaDB and MySQL, as {@code eosink-postgres} does: INSERT and UPDATE_AFTER rows
 * upsert their key ({@code INSERT ... ON DUPLICATE KEY UPDATE}), DELETE rows delete it, and so do
 * UPDATE_BEFORE rows, which the table does not ask for but the planner sends after a filter on an
 * updating result (such as {@code HAVING}): one without its UPDATE_AFTER is a key leaving the result.
 * The last row of a key wins, so an UPDATE_BEFORE followed by its UPDATE_AFTER ends as that; when a
 * checkpoint falls between them, that checkpoint commits the key deleted. The database table needs
 * a PRIMARY KEY or UNIQUE key on exactly the key's columns (checked when the job starts), and the
 * sink keys its input by the primary key. A {@code jdbc:postgresql:} URL with a primary key is
 * refused: PostgreSQL's XA does not upsert, {@code eosink-postgres} does.
 *
 * <p>Everything the builder checks is checked when the table is planned: a refusal is a {@code
 * ValidationException} naming the table, the option, its value and what is allowed (never the
 * password's value). What needs the database is checked when the job starts.
 */
@PublicEvolving
public final class XaDynamicTableSinkFactory implements DynamicTableSinkFactory {

    /** The value of {@code 'connector'}. */
    public static final String IDENTIFIER = "eosink-xa";

    /** The factory Flink finds through {@code META-INF/services} for {@code 'connector' = 'eosink-xa'}. */
    public XaDynamicTableSinkFactory() {}

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
        return CommonOptions.optional(XaTableOptions.NETWORK_TIMEOUT, XaTableOptions.LOCK_TIMEOUT);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        TableOptions options = TableOptions.validated(this, context);
        TableColumns columns = TableColumns.of(context);
        XaSinkBuilder<RowData> builder = XaSink.builder();
        CommonOptions.apply(options, builder);
        CommonOptions.rowsAsObjects(options, builder, columns);
        options.set(XaTableOptions.NETWORK_TIMEOUT, builder::networkTimeout);
        options.set(XaTableOptions.LOCK_TIMEOUT, builder::lockTimeout);
        if (columns.hasPrimaryKey()
                && options.get(JdbcTableOptions.URL).orElseThrow().startsWith("jdbc:postgresql:")) {
            // The builder refuses it too, at build(), with a remedy for DataStream jobs.
            throw options.refused("the PRIMARY KEY " + columns.keyNames() + " asks for upserts and deletes by key, "
                    + "which eosink-xa writes on MariaDB and MySQL, not through PostgreSQL's XA. Write into PostgreSQL "
                    + "with 'connector' = '" + PostgresDynamicTableSinkFactory.IDENTIFIER + "', which upserts exactly "
                    + "once by PostgreSQL's own two-phase commit, or remove the PRIMARY KEY clause to append.");
        }
        CommonOptions.upsertByPrimaryKey(options, builder, columns);
        Duration network = options.get(XaTableOptions.NETWORK_TIMEOUT).orElseThrow();
        Duration lock = options.get(XaTableOptions.LOCK_TIMEOUT).orElseThrow();
        if (!network.isZero() && lock.compareTo(network) >= 0) {
            throw options.refused("'" + XaTableOptions.LOCK_TIMEOUT.key() + "' (" + lock.toMillis() + " ms) must be "
                    + "shorter than '" + XaTableOptions.NETWORK_TIMEOUT.key() + "' (" + network.toMillis()
                    + " ms): a lock "
                    + "wait would otherwise end as an aborted connection instead of with its own error.");
        }
        ExactlyOnceSink<RowData> sink = options.build(builder::build);
        return new ExactlyOnceTableSink(
                sink,
                columns,
                options.parallelism(),
                CommonOptions.summary(IDENTIFIER, options, columns),
                CommonOptions.operatorName(IDENTIFIER, options));
    }
}
