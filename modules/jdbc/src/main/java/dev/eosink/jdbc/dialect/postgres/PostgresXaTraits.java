/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.postgres;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.dialect.XaDriver;
import dev.eosink.jdbc.dialect.XaTraits;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.XADataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;

/**
 * PostgreSQL's XA through pgjdbc's {@code PGXADataSource}. Measured with pgjdbc 42.7 on PostgreSQL 17:
 *
 * <ul>
 *   <li>An Xid becomes the gid {@code <formatId>_<base64 gtrid>_<base64 bqual>} (at most 188 bytes for 64-byte
 *       parts, under PostgreSQL's 200); {@code recover()} parses {@code pg_prepared_xacts} of the current database
 *       back, and returns nothing unless called with TMSTARTRSCAN.
 *   <li>After prepare the connection is idle and can start the next branch; another connection of the same role can
 *       commit the prepared branch while the preparing one is still open.
 *   <li>Commit or rollback of an unknown gid fails with XAER_NOTA (SQLSTATE 42704 underneath).
 *   <li>An empty branch prepares as XA_OK, not XA_RDONLY; a duplicate Xid is found only at prepare.
 * </ul>
 */
final class PostgresXaTraits implements XaTraits {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresXaTraits.class);

    private static final XaDriver PGJDBC = new XaDriver() {
        @Override
        public String displayName() {
            return "pgjdbc";
        }

        @Override
        public String dataSourceClass() {
            return "org.postgresql.xa.PGXADataSource";
        }

        @Override
        public String artifact() {
            return "org.postgresql:postgresql";
        }

        @Override
        public XADataSource create(String url, Properties properties, String applicationName) throws SQLException {
            return PgJdbcXaSource.create(url, properties, applicationName);
        }
    };

    @Override
    public Optional<XaDriver> driver(String jdbcUrl, ClassLoader loader) {
        return Optional.of(PGJDBC);
    }

    @Override
    public boolean keepsConnectionAfterPrepare() {
        return true;
    }

    @Override
    public void checkServer(Connection c, SubtaskContext context, String where, int maxPreparedPerSubtask)
            throws SQLException, SinkException {
        int max =
                Integer.parseInt(String.valueOf(Sql.single(c, "SELECT current_setting('max_prepared_transactions')")));
        int needed = 2 * context.parallelism();
        if (max < needed) {
            throw new MisconfigurationException(context + ": PostgreSQL at " + where
                    + " has max_prepared_transactions = " + max
                    + "; this sink needs at least " + needed + " (2 per subtask), and room for "
                    + maxPreparedPerSubtask * context.parallelism() + " (maxPreparedPerSubtask per subtask) when "
                    + "checkpoints fail. Remedy: set max_prepared_transactions in postgresql.conf "
                    + "(sql/00-server-settings.sql) and restart PostgreSQL.");
        }
        if (max < maxPreparedPerSubtask * context.parallelism()) {
            LOG.warn(
                    "{}: max_prepared_transactions = {} leaves no room for maxPreparedPerSubtask ({}) x parallelism "
                            + "({}) prepared branches of this sink, which it may hold while checkpoints fail; size it as "
                            + "the sum of parallelism x maxPreparedPerSubtask over the sinks on this server.",
                    context,
                    max,
                    maxPreparedPerSubtask,
                    context.parallelism());
        }
    }
}
