/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.xa.internal.XaIds;

import org.apache.flink.annotation.PublicEvolving;

import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * How the XA sink names its branches, for an operator's tool that looks for a sink's prepared
 * branches ({@code XA RECOVER}, {@code pg_prepared_xacts}) to resolve them by hand: every branch of a
 * sink has the format id {@link #FORMAT_ID} and the branch qualifier {@link #branchQualifier}; its
 * global transaction id carries the subtask, checkpoint and run as text (see docs/xa.md, "Transaction
 * names" and "Operators").
 */
@PublicEvolving
public final class XaBranchNames {

    /** "EOS1": the format id of every branch of the XA sink, whatever the sink id. */
    public static final int FORMAT_ID = XaIds.FORMAT_ID;

    private XaBranchNames() {}

    /** The branch qualifier of every branch of sink {@code sinkId}: the sink id, shortened with its hash past 64 bytes. */
    public static byte[] branchQualifier(String sinkId) {
        return XaIds.bqual(TransactionId.checkSinkId(sinkId));
    }

    /**
     * The transaction a recovered Xid names, if it is a branch of sink {@code sinkId}: the same
     * {@link TransactionId} the writer prepared (its {@code toString()} is the marker row's gid).
     * Empty for a branch of another sink, another tool or another format.
     */
    public static Optional<TransactionId> parse(Xid xid, String sinkId) {
        return XaIds.parse(xid, TransactionId.checkSinkId(sinkId));
    }

    /**
     * The transaction a recovered Xid names, for any sink whose id fits the branch qualifier whole (64
     * bytes or less): the qualifier is then the sink id. Empty for other Xids, and for a sink whose
     * longer id the qualifier shortens: ask {@link #parse(Xid, String)} with that id.
     */
    public static Optional<TransactionId> parse(Xid xid) {
        if (xid == null || xid.getFormatId() != FORMAT_ID) {
            return Optional.empty();
        }
        String bqual = new String(xid.getBranchQualifier(), StandardCharsets.US_ASCII);
        if (!TransactionId.SINK_ID.matcher(bqual).matches()) {
            return Optional.empty();
        }
        return XaIds.parse(xid, bqual);
    }

    /**
     * The name of the named session lock ({@code GET_LOCK}) that a live writer subtask {@code subtask}
     * of sink {@code sinkId} holds on MariaDB and MySQL as its ownership guard: {@code
     * IS_USED_LOCK(name)} is not null while a job with that sink id is alive.
     */
    public static String guardLockName(String sinkId, int subtask) {
        return LockNames.guard(LockNames.sinkHash(sinkId), subtask);
    }

    /**
     * The name of the named session lock that every session carrying a branch of writer subtask
     * {@code subtask} of sink {@code sinkId} holds on MariaDB and MySQL, from before its first {@code
     * XA START} until the session ends: while it is in use, a session of that subtask may still be
     * preparing a branch, and the server lets no other session finish the branches it prepared.
     */
    public static String branchLockName(String sinkId, int subtask) {
        return LockNames.branch(LockNames.sinkHash(sinkId), subtask);
    }
}
