/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.jdbc.RefusedRecords;
import dev.eosink.jdbc.driver.JdbcDrivers;
import dev.eosink.jdbc.io.IoWatchdog;
import dev.eosink.jdbc.sql.MarkerTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.UserCodeClassLoader;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;

/**
 * PostgreSQL's native two-phase commit ({@code PREPARE TRANSACTION} / {@code COMMIT PREPARED}) as a
 * {@link TransactionalDatabase}: serializable {@link PostgresSinkOptions}, shipped with the job, that
 * open the sessions on the task managers. Opening a writer runs the {@link Preflight} on the writer's
 * own connection, so that everything that would otherwise fail at the first checkpoint fails at start,
 * and gives the session the options and what the preflight found.
 */
@Internal
public final class PostgresDatabase<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;

    private static final Wording WORDS = new Wording(
            MarkerTable.MISSING,
            "sql/03-prepared-transactions.sql: COMMIT PREPARED or ROLLBACK PREPARED",
            "the row locks of the rows it wrote (a write to one of those rows waits for them until lock_timeout, "
                    + "then fails with SQLSTATE 55P03) and one of the server's max_prepared_transactions, which every "
                    + "application on it shares",
            "PostgreSQL keeps on every row the id of the transaction that wrote it (xmin), and so on the marker row "
                    + "that each transaction of the sink writes: rows of the table whose xmin no marker row of the sink "
                    + "has, between the xmin of the marker rows of the same subtask's checkpoints before and after it, "
                    + "are its rows (SELECT xmin, count(*) FROM the table GROUP BY xmin; written by COPY or batched "
                    + "inserts, without a dead-letter table, they share one xmin, and the rows of an upsert table that "
                    + "a later write updated carry that write's); docs/operations.md, \"A transaction reported LOST\"",
            MarkerTable.RESTORE_MARKER);

    /** The writer session's lock_timeout: a write waiting longer for a row lock fails the task. */
    static final int WRITER_LOCK_TIMEOUT_SECONDS = 60;

    private final PostgresSinkOptions<IN> options;

    public PostgresDatabase(PostgresSinkOptions<IN> options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    public PostgresSinkOptions<IN> options() {
        return options;
    }

    public PostgresConnection connection() {
        return options.connection();
    }

    @Override
    public String target() {
        return options.target().describe();
    }

    /** The operator's view and statements of the repository's SQL scripts; the server's row locks and slots. */
    @Override
    public Wording wording() {
        return WORDS;
    }

    /** pgjdbc's driver registers itself when loaded: it must not keep the job's class loader (see {@link JdbcDrivers}). */
    @Override
    public void registerReleaseHooks(UserCodeClassLoader userCode) {
        JdbcDrivers.deregisterOnRelease(userCode);
    }

    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        Connection c = connect(context, "writer");
        // Aborts go to pgjdbc's connection itself, under a pool's wrapper if there is one: what an abort
        // of a wrapper does is the pool's choice, and the socket must close.
        IoWatchdog io = new IoWatchdog(SessionEnd.physical(c), options.networkTimeout(), context);
        try {
            c.setAutoCommit(true);
            // The epoch's statements must see what the commits they wait for made visible (OwnCommits):
            // under a database default of REPEATABLE READ, a delete run after its key's previous transaction
            // was committed would use a snapshot from before that commit, and miss the rows it inserted.
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (Statement s = c.createStatement()) {
                // A writer must never wait forever on a row lock: a lock held by a prepared
                // transaction is released only by a commit that may need this very task thread.
                s.execute("SET lock_timeout = '" + WRITER_LOCK_TIMEOUT_SECONDS + "s'");
            }
            Preflight.Findings<IN> findings = Preflight.run(c, context, options);
            // The session's COPY flow control, for either COPY path; its monitor connection is opened
            // when first needed, so a session that never falls behind (or never copies) has none.
            CopyBacklog backlog = new CopyBacklog(
                    () -> options.connection().open(applicationName(context, "copy-monitor")),
                    options.maxCopyBacklog(),
                    context);
            return new PostgresWriterSession<>(
                    context,
                    options,
                    findings,
                    new WatchedConnection(c, io, backlog),
                    new PostgresWriterSession.SideConnections(
                            () -> options.connection().open(applicationName(context, "guard-probe")),
                            new PreparedListing(
                                    () -> options.connection().open(applicationName(context, "commit-look")),
                                    options.networkTimeout(),
                                    context)));
        } catch (SQLException e) {
            endQuietly(c, io, context, e);
            throw new SinkException(
                    context + ": checking PostgreSQL at " + options.connection().describe() + " failed: "
                            + e.getMessage(),
                    e);
        } catch (IOException | RuntimeException e) {
            endQuietly(c, io, context, e);
            throw e;
        }
    }

    /** Ends the session of a writer that failed to open (it set lock_timeout): never back to a pool alive. */
    private static void endQuietly(Connection c, IoWatchdog io, SubtaskContext context, Exception primary) {
        try {
            SessionEnd.endSession(c, io, context);
        } catch (SQLException suppressed) {
            primary.addSuppressed(suppressed);
        }
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        String name = applicationName(context, "committer");
        return new PostgresCommitSession(
                context, options.markers(), options.connection().pool(name, name, 2), options.networkTimeout());
    }

    private Connection connect(SubtaskContext context, String role) throws SinkException {
        try {
            return options.connection().open(applicationName(context, role));
        } catch (SQLException e) {
            throw new SinkException(
                    context
                            + ": could not connect to PostgreSQL at "
                            + options.connection().describe()
                            + ": "
                            + e.getMessage()
                            + " (SQLSTATE "
                            + e.getSQLState()
                            + "). Remedy: check the JDBC URL, the credentials and that the server accepts "
                            + "connections from the task managers.",
                    e);
        }
    }

    /**
     * application_name: how operators and tests recognize the sink's sessions in pg_stat_activity.
     * PostgreSQL truncates it to 63 bytes; a long sink id is shortened here instead, so that the
     * subtask and role at the end survive.
     */
    static String applicationName(SubtaskContext context, String role) {
        String suffix = "/" + context.subtask() + "/" + role;
        String sinkId = context.sinkId(); // ASCII by construction (TransactionId.SINK_ID)
        int room = 63 - "eosink/".length() - suffix.length();
        if (sinkId.length() > room) {
            sinkId = sinkId.substring(0, room - 1) + "~";
        }
        return "eosink/" + sinkId + suffix;
    }

    @Override
    public String toString() {
        return "PostgresDatabase{" + options.connection().describe() + ", " + target() + ", markers "
                + options.markers().table()
                + (options.refusedRecords() instanceof RefusedRecords.DeadLetterTable deadLetters
                        ? ", dead letters " + deadLetters.table()
                        : "")
                + "}";
    }
}
