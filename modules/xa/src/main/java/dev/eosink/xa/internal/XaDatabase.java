/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.driver.JdbcDrivers;
import dev.eosink.jdbc.sql.InsertStatement;
import dev.eosink.jdbc.sql.MarkerTable;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.UserCodeClassLoader;

import javax.sql.XAConnection;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;

/**
 * Any {@code javax.sql.XADataSource} as a {@link TransactionalDatabase}: each epoch is one XA branch
 * (start at the epoch's first record, end + prepare at the barrier), committed by the committer with
 * {@code XAResource.commit} from a connection of its own. The protocol is the core's; this class holds
 * the {@link XaSinkOptions}, shipped with the job, and opens the sessions on the task managers: opening a
 * writer runs the {@link XaPreflight} on the writer's guard connection and gives the writer its {@link
 * XaWritePath}. What differs per database is in its {@link JdbcDialect}, found from the connection's
 * name.
 */
@Internal
public final class XaDatabase<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;

    private static final Wording WORDS = new Wording(
            MarkerTable.MISSING,
            "docs/xa.md, Operators: XA RECOVER, XA COMMIT or XA ROLLBACK on MariaDB and MySQL, pg_prepared_xacts, "
                    + "COMMIT PREPARED or ROLLBACK PREPARED on PostgreSQL",
            "the row locks of the rows it wrote (a write to one of those rows waits for them until the lock timeout: "
                    + "innodb_lock_wait_timeout on MariaDB and MySQL) and, on PostgreSQL, one of the server's "
                    + "max_prepared_transactions, which every application on it shares",
            "look in the table for the rows of the records that subtask wrote between the barrier of the checkpoint "
                    + "before and that checkpoint's barrier (MariaDB and MySQL keep no writer's transaction id on a "
                    + "row); docs/operations.md, \"A transaction reported LOST\"",
            MarkerTable.RESTORE_MARKER);

    private final XaSinkOptions<IN> options;

    public XaDatabase(XaSinkOptions<IN> options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    public XaSinkOptions<IN> options() {
        return options;
    }

    Duration networkTimeout() {
        return options.networkTimeout();
    }

    Duration lockTimeout() {
        return options.lockTimeout();
    }

    XaConnector connector() {
        return options.connector();
    }

    InsertStatement<IN> statement() {
        return options.common().statement();
    }

    int batchSize() {
        return options.common().batchSize();
    }

    /** The marker table. */
    SqlIdentifier markerId() {
        return options.common().markerTable();
    }

    /**
     * Bounds the lock waits of {@code c} by the lock timeout, where the dialect knows a setting; without one, a write
     * waiting on a lock is bounded by the network timeout alone.
     */
    void boundLockWaits(JdbcDialect dialect, Connection c) throws SQLException {
        if (dialect.lockTimeout().isPresent()) {
            dialect.lockTimeout().get().set(c, lockTimeout());
        }
    }

    String markerSchema() {
        return options.common().markerTable().schema();
    }

    String markerTable() {
        return options.common().markerTable().name();
    }

    /** Each database's own statements and limits: which database it is, the sink knows only once it connects. */
    @Override
    public Wording wording() {
        return WORDS;
    }

    /** "table orders" or "table shop.orders", or the user's statement. Never credentials. */
    @Override
    public String target() {
        if (statement() instanceof InsertStatement.Columns<IN> insert) {
            SqlIdentifier table = insert.table();
            return "table " + (table.schema() == null ? "" : table.schema() + ".") + table.name();
        }
        return statement().describe();
    }

    /** application_name (PostgreSQL) or program_name (MariaDB): how operators see the sink's sessions. */
    static String applicationName(SubtaskContext context, String role) {
        String name = "eosink-xa/" + context.sinkId() + "/" + context.subtask() + "/" + role;
        return name.length() <= 63
                ? name
                : "eosink-xa/" + LockNames.sinkHash(context.sinkId()) + "/" + context.subtask() + "/" + role;
    }

    /**
     * pgjdbc's and MariaDB Connector/J's drivers register themselves when loaded: they must not keep the
     * job's class loader (see {@link JdbcDrivers}).
     */
    @Override
    public void registerReleaseHooks(UserCodeClassLoader userCode) {
        JdbcDrivers.deregisterOnRelease(userCode);
    }

    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        XAConnection guard = open(context, "guard");
        try {
            Connection c = guard.getConnection();
            c.setAutoCommit(true);
            JdbcDialect dialect = JdbcDialects.forConnection(c);
            XaPreflight.run(c, context, this, dialect);
            return new XaWriterSession<>(context, this, dialect, guard, c);
        } catch (SQLException e) {
            closeQuietly(guard, e);
            throw new SinkException(
                    context + ": checking the database at " + connector().describe() + " failed: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            closeQuietly(guard, e);
            throw e;
        }
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) {
        return new XaCommitSession(context, this);
    }

    XAConnection open(SubtaskContext context, String role) throws SinkException {
        try {
            return connector().open(applicationName(context, role), lockTimeout());
        } catch (IllegalStateException e) {
            // The URL's XA driver is not on the class path (the message names the artifact): a restart finds the same.
            throw new MisconfigurationException(context + ": " + e.getMessage(), e);
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not connect to " + connector().describe() + ": " + e.getMessage()
                            + " (SQLSTATE " + e.getSQLState()
                            + "). Remedy: check the JDBC URL, the credentials and that the "
                            + "server accepts connections from the task managers.",
                    e);
        }
    }

    static void closeQuietly(XAConnection c, Exception primary) {
        try {
            c.close();
        } catch (SQLException suppressed) {
            primary.addSuppressed(suppressed);
        }
    }

    /**
     * Whether the database refused a statement for what it is or for the user, which a restart finds the
     * same ({@link XaPreflight} refuses to start then): SQLSTATE class 42, syntax error or access rule violation (a missing table or column, a missing
     * privilege; MariaDB's 42S02, 42S22 and 42000 among them). Anything else (a connection lost, a
     * timeout, a lock) may be over by the next attempt; so are MariaDB's and MySQL's limits of a user's
     * resources, which they report as 42000 too: {@value #TOO_MANY_USER_CONNECTIONS} (the user's
     * {@code max_user_connections}) and {@value #USER_LIMIT_REACHED} ({@code max_queries_per_hour} and the
     * like, reset every hour).
     */
    static boolean refusesForGood(SQLException e) {
        String state = e.getSQLState();
        if (state == null || !state.startsWith("42")) {
            return false;
        }
        return e.getErrorCode() != TOO_MANY_USER_CONNECTIONS && e.getErrorCode() != USER_LIMIT_REACHED;
    }

    /** MariaDB's and MySQL's ER_TOO_MANY_USER_CONNECTIONS (SQLSTATE 42000): a limit, not a refusal. */
    static final int TOO_MANY_USER_CONNECTIONS = 1203;
    /** MariaDB's and MySQL's ER_USER_LIMIT_REACHED (SQLSTATE 42000): an hourly limit, not a refusal. */
    static final int USER_LIMIT_REACHED = 1226;

    @Override
    public String toString() {
        return "XaDatabase{" + connector().describe() + ", " + target() + "}";
    }
}
