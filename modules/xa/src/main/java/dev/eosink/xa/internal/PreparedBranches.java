/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.XaTraits;
import dev.eosink.xa.internal.XaErrors.Handling;
import dev.eosink.xa.internal.XaErrors.Operation;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The prepared branches of one sink, as the dialect lists them ({@link XaTraits#preparedBranches}: {@code
 * XAResource.recover}, filtered where the driver also lists branches that are no longer prepared): what the
 * writer's recovery acts on, and what the committer asks when a commit's answer leaves open whether a branch is
 * still prepared. Both sessions list the same way; only branches whose Xid {@link XaIds#parse} claims for the
 * sink are returned, so a foreign branch (another sink, another tool) is never touched.
 */
final class PreparedBranches {

    private PreparedBranches() {}

    /**
     * The prepared branches of {@code context}'s sink, whatever subtask or run.
     *
     * @param io bounds the call on the connection {@code resource} belongs to
     * @param plain a plain JDBC handle of the same database (of {@code resource}'s XAConnection), which the
     *     dialect may read the database's own list of prepared branches on; only read
     * @param dialect lists the branches, and adds how to let the sink's user list prepared branches to a
     *     refused listing
     */
    static List<TransactionId> list(
            XaIo io, XAResource resource, Connection plain, SubtaskContext context, JdbcDialect dialect)
            throws SinkException {
        List<Xid> xids;
        try {
            xids = io.xa("XA recover", () -> dialect.xa().preparedBranches(resource, plain));
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": XA recover (listing prepared transactions) failed: " + e.getMessage()
                            + ". The task fails and the restarted one tries again.",
                    e);
        } catch (XAException e) {
            throw new SinkException(
                    context + ": XA recover (listing prepared transactions) failed: "
                            + XaErrors.describe(e) + "."
                            + (XaErrors.of(Operation.RECOVER, e) == Handling.RETRY
                                    ? " The task fails and the restarted one tries again."
                                    : XaErrors.remedy(Operation.RECOVER, e.errorCode)
                                            + dialect.xa().recoverRemedy()),
                    e);
        }
        List<TransactionId> ids = new ArrayList<>();
        for (Xid xid : xids) {
            XaIds.parse(xid, context.sinkId()).ifPresent(ids::add);
        }
        return ids;
    }
}
