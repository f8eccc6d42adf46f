package dev.eosink.xa;

import dev.eosink.core.TransactionId;
import dev.eosink.xa.internal.XaIds;

import org.apache.flink.annotation.PublicEvolving;

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
}
