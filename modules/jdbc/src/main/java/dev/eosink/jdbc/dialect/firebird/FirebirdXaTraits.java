/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.ErrorKinds;
import dev.eosink.jdbc.dialect.MarkerSql;
import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.dialect.XaDriver;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.jdbc.sql.SqlIdentifier;

import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * Firebird 3's XA through Jaybird's {@code FBXADataSource}. Measured on Firebird 3.0.11 with Jaybird 6.0.3 (see
 * also {@code FirebirdXaContractITCase}):
 *
 * <ul>
 *   <li>A prepared branch survives SIGKILL of the server; {@code recover} on any connection of any user lists it with
 *       its Xid's bytes, and any connection commits or rolls it back, also while the preparing one is still open.
 *       After {@code prepare} the same connection starts the next branch ({@link #keepsConnectionAfterPrepare}).
 *   <li>A branch prepared by a session that is gone is "in limbo": a reader that meets one of its rows fails with
 *       335544459 unless its transaction ignores limbo ({@link #pastPrepared}).
 *   <li>{@code recover} also lists branches that were committed or rolled back from another connection than the
 *       preparing one: their {@code RDB$TRANSACTIONS} rows stay (state 2 or 3), Jaybird's query has no state filter,
 *       and its {@code forget} fails (XAER_RMERR, "Unexpected end of command"). So {@link #preparedBranches} keeps
 *       those in state 1 (limbo) only.
 *   <li>A second commit or rollback of a finished branch answers XA_HEURCOM with isc 335544353 ("transaction is not
 *       in limbo"), whether it was committed or rolled back ({@link #answersFinished}). An Xid never prepared
 *       answers XAER_NOTA.
 *   <li>No XA_RDONLY: an empty branch prepares as XA_OK and is listed.
 * </ul>
 *
 * <p>The database's answers are the truth (no success answered while nothing happened was seen), so {@link
 * #provesOutcomesByMarker} is false; {@link #markerRow} still tells a held marker row apart, for the committer and
 * the admin tool.
 */
final class FirebirdXaTraits implements XaTraits {

    /** {@code isc_no_recon}: "unable to complete in limbo transaction": the branch is not in limbo (any more). */
    static final int NOT_IN_LIMBO = 335544353;

    private static final XaDriver JAYBIRD = new XaDriver() {
        @Override
        public String displayName() {
            return "Jaybird";
        }

        @Override
        public String dataSourceClass() {
            return "org.firebirdsql.ds.FBXADataSource";
        }

        @Override
        public String artifact() {
            return "org.firebirdsql.jdbc:jaybird";
        }

        @Override
        public XADataSource create(String url, Properties properties, String applicationName) throws SQLException {
            return FirebirdXaSource.create(url, properties, applicationName, null);
        }

        /** Jaybird's read timeout, in milliseconds; it knows no {@code socketTimeout}. */
        @Override
        public String readTimeoutProperty() {
            return "soTimeout";
        }

        /** The bound goes into the data source's TPB of READ COMMITTED, which its XA branches use (measured). */
        @Override
        public XADataSource create(String url, Properties properties, String applicationName, Duration lockTimeout)
                throws SQLException {
            return FirebirdXaSource.create(url, properties, applicationName, lockTimeout);
        }
    };

    private final FirebirdDialect dialect;

    FirebirdXaTraits(FirebirdDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public Optional<XaDriver> driver(String jdbcUrl, ClassLoader loader) {
        return Optional.of(JAYBIRD);
    }

    @Override
    public boolean keepsConnectionAfterPrepare() {
        return true;
    }

    /**
     * The marker row read in a READ COMMITTED transaction without record versions and without waiting ({@link
     * FirebirdTpb#PROBE}): a row of a branch still prepared fails the read, with 335544336 while its preparing
     * session lives, with 335544459 once it is gone (in limbo); both are HELD. Measured: a default reader skips the
     * former silently and fails on the latter, one that ignores limbo skips both.
     *
     * @param c in autocommit (the guard's connection, in its transaction, cannot ask); its isolation is restored
     */
    @Override
    public MarkerRow markerRow(Connection c, MarkerSql markers, String gid) throws SQLException {
        return inLevel(c, FirebirdTpb.PROBE, "The marker probe", () -> {
            try {
                return Sql.single(c, markers.existsSql(), gid) == null ? MarkerRow.ABSENT : MarkerRow.COMMITTED;
            } catch (SQLException e) {
                if (dialect.errors().isLockTimeout(e) || FirebirdErrors.inLimbo(e)) {
                    return MarkerRow.HELD;
                }
                throw e;
            }
        });
    }

    /** Reads in a transaction that ignores limbo (and does not wait: nothing the sink reads this way is locked). */
    @Override
    public <T> T pastPrepared(Connection c, SqlWork<T> work) throws SQLException {
        return inLevel(c, FirebirdTpb.SKIP_LIMBO, "A read past prepared branches", work);
    }

    /**
     * {@code recover}'s Xids whose {@code RDB$TRANSACTIONS} row is in state 1 (limbo: prepared), matched by the Xid
     * stored in its description ({@link FirebirdXids}).
     */
    @Override
    public List<Xid> preparedBranches(XAResource resource, Connection plain) throws XAException, SQLException {
        Set<String> prepared = new HashSet<>();
        try (PreparedStatement s = plain.prepareStatement("SELECT RDB$TRANSACTION_DESCRIPTION FROM RDB$TRANSACTIONS "
                        + "WHERE RDB$TRANSACTION_STATE = 1");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                byte[] description = rs.getBytes(1);
                if (description != null) {
                    FirebirdXids.decode(description).ifPresent(prepared::add);
                }
            }
        }
        List<Xid> listed = new ArrayList<>();
        for (Xid xid : XaTraits.super.preparedBranches(resource, plain)) {
            if (prepared.contains(FirebirdXids.key(xid))) {
                listed.add(xid);
            }
        }
        return listed;
    }

    /** XA_HEURCOM caused by isc 335544353: see the class comment. */
    @Override
    public boolean answersFinished(XAException e) {
        if (e.errorCode != XAException.XA_HEURCOM) {
            return false;
        }
        for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof SQLException sql
                    && ErrorKinds.chain(sql).stream().anyMatch(x -> x.getErrorCode() == NOT_IN_LIMBO)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Firebird 3 or later, and a connection that can run the guard's and the marker probe's transactions: one of a
     * data source that the dialect's driver made ({@link FirebirdTpb}), or a plain one.
     */
    @Override
    public void checkServer(Connection c, SubtaskContext context, String where, int maxPreparedPerSubtask)
            throws SQLException, SinkException {
        Object version = Sql.single(c, "SELECT RDB$GET_CONTEXT('SYSTEM', 'ENGINE_VERSION') FROM RDB$DATABASE");
        int major = Integer.parseInt(String.valueOf(version).split("\\.")[0]);
        if (major < 3) {
            throw new MisconfigurationException(
                    context + ": " + where + " runs Firebird " + version + "; the XA sink needs Firebird 3 or later.");
        }
        try {
            String remedy = "Remedy: let the sink create its XADataSource (from the JDBC URL) rather than give one.";
            FirebirdTpb.ensure(c, FirebirdTpb.SKIP_LIMBO, FirebirdTpb.skipLimbo(), "The ownership guard", remedy);
            FirebirdTpb.ensure(c, FirebirdTpb.PROBE, FirebirdTpb.probe(), "The marker probe", remedy);
        } catch (SQLException e) {
            throw new MisconfigurationException(context + ": " + where + ": " + e.getMessage(), e);
        }
    }

    /**
     * Refuses an external table (its file is written at once, whatever the transaction does) and a global temporary
     * one (its rows never reach another session); Firebird's ordinary tables all take part in transactions.
     */
    @Override
    public void checkTransactional(Connection c, SubtaskContext context, SqlIdentifier table)
            throws SQLException, SinkException {
        Object type =
                Sql.single(c, "SELECT RDB$RELATION_TYPE FROM RDB$RELATIONS WHERE RDB$RELATION_NAME = ?", table.name());
        int t = type == null ? 0 : ((Number) type).intValue();
        if (t == 2 || t == 4 || t == 5) {
            throw new MisconfigurationException(context + ": table " + dialect.qualified(table) + " is "
                    + (t == 2
                            ? "an external table, whose file is written at once"
                            : "a global temporary table, " + "whose rows no other session sees")
                    + ": it cannot take the sink's rows exactly once. Remedy: "
                    + "write to an ordinary table.");
        }
    }

    /** Firebird lists every prepared branch of the database to any user (measured): no privilege to grant. */
    @Override
    public String recoverRemedy() {
        return "";
    }

    /** Jaybird's {@code abort} waits for the blocked call: see {@link FirebirdAbort}. */
    @Override
    public Connection abortable(Connection c) throws SQLException {
        return FirebirdAbort.abortingBySocket(c);
    }

    /** Runs {@code work} in autocommit transactions of {@code level}, restoring the connection's isolation. */
    private static <T> T inLevel(Connection c, int level, String what, SqlWork<T> work) throws SQLException {
        if (!c.getAutoCommit()) {
            throw new SQLException(what + " on Firebird needs a connection in autocommit: it runs transactions of "
                    + "its own kind, which a connection inside a transaction cannot begin");
        }
        FirebirdTpb.ensure(
                c,
                level,
                level == FirebirdTpb.PROBE ? FirebirdTpb.probe() : FirebirdTpb.skipLimbo(),
                what,
                "Create the XADataSource through the Firebird dialect's XaDriver.");
        int before = c.getTransactionIsolation();
        c.setTransactionIsolation(level);
        try {
            return work.run();
        } finally {
            c.setTransactionIsolation(before);
        }
    }
}
