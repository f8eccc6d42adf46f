/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.dialect.LockNames;

import org.apache.flink.annotation.Internal;

import javax.transaction.xa.Xid;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * The XA name of a {@link TransactionId}, within XA's limits (global transaction id and branch
 * qualifier at most 64 bytes each), and back.
 *
 * <pre>
 * format id  0x454F5331 ("EOS1")
 * gtrid      e1/&lt;sink hash&gt;/&lt;subtask&gt;/&lt;checkpoint&gt;/&lt;run&gt;   at most 3+16+1+10+1+19+1+12 = 63 bytes
 * bqual      the sink id, or its first 47 characters + "~" + 16 hex of its hash when longer than 64 bytes
 * </pre>
 *
 * <p>Invariants recovery relies on:
 *
 * <ul>
 *   <li>Injective per sink: subtask, checkpoint and run are in the gtrid as the core name has them;
 *       two sinks differ in the sink hash (64 bits of SHA-256 of the sink id) and in the bqual.
 *   <li>Ownership is decided on the full sink id: {@link #parse} accepts an Xid only when format id,
 *       sink hash and bqual are exactly those of the given sink id, and then returns the same {@link
 *       TransactionId} the writer prepared (the sink id is the caller's; the rest is parsed). A foreign
 *       Xid (another sink, another tool, another format) is never claimed.
 *   <li>Readable for operators: {@code XA RECOVER} and {@code pg_prepared_xacts} show the gtrid and
 *       bqual as text, so the subtask, checkpoint, run and (prefix of the) sink id can be read off.
 * </ul>
 */
@Internal
public final class XaIds {

    /** "EOS1": distinguishes this sink's branches from any other XA user of the database. */
    public static final int FORMAT_ID = 0x454F5331;

    static final String GTRID_PREFIX = "e1/";
    static final int MAX_PART = 64;

    private XaIds() {}

    public static Xid toXid(TransactionId id) {
        String gtrid =
                GTRID_PREFIX + sinkHash(id.sinkId()) + "/" + id.subtask() + "/" + id.checkpointId() + "/" + id.run();
        return new XaXid(FORMAT_ID, gtrid.getBytes(StandardCharsets.US_ASCII), bqual(id.sinkId()));
    }

    /** The transaction {@code xid} names if it is one of sink {@code sinkId}'s; empty for anything else. */
    public static Optional<TransactionId> parse(Xid xid, String sinkId) {
        if (xid == null || xid.getFormatId() != FORMAT_ID || !Arrays.equals(xid.getBranchQualifier(), bqual(sinkId))) {
            return Optional.empty();
        }
        String gtrid = new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII);
        String[] parts = gtrid.split("/", -1);
        if (parts.length != 5 || !(parts[0] + "/").equals(GTRID_PREFIX) || !parts[1].equals(sinkHash(sinkId))) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new TransactionId(sinkId, Integer.parseInt(parts[2]), Long.parseLong(parts[3]), parts[4]));
        } catch (IllegalArgumentException e) { // includes NumberFormatException
            return Optional.empty();
        }
    }

    /** What the gtrid carries instead of the sink id: {@link LockNames#sinkHash}. */
    public static String sinkHash(String sinkId) {
        return LockNames.sinkHash(sinkId);
    }

    /** The sink id as the branch qualifier; shortened (with its hash) when over XA's 64 bytes. */
    public static byte[] bqual(String sinkId) {
        byte[] bytes = sinkId.getBytes(StandardCharsets.US_ASCII); // [A-Za-z0-9_.-] by TransactionId.SINK_ID
        if (bytes.length <= MAX_PART) {
            return bytes;
        }
        return (sinkId.substring(0, MAX_PART - 17) + "~" + sinkHash(sinkId)).getBytes(StandardCharsets.US_ASCII);
    }

    /** "gtrid/bqual (format id)" as text, for messages about an Xid that may not be ours. */
    public static String describe(Xid xid) {
        return new String(xid.getGlobalTransactionId(), StandardCharsets.ISO_8859_1)
                + " bqual "
                + new String(xid.getBranchQualifier(), StandardCharsets.ISO_8859_1)
                + " (format id "
                + xid.getFormatId()
                + ")";
    }

    /** A plain, immutable Xid. */
    static final class XaXid implements Xid {
        private final int formatId;
        private final byte[] gtrid;
        private final byte[] bqual;

        XaXid(int formatId, byte[] gtrid, byte[] bqual) {
            if (gtrid.length > MAX_PART || bqual.length > MAX_PART) {
                throw new IllegalArgumentException("XA allows 64 bytes for gtrid and bqual each");
            }
            this.formatId = formatId;
            this.gtrid = gtrid.clone();
            this.bqual = bqual.clone();
        }

        @Override
        public int getFormatId() {
            return formatId;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return gtrid.clone();
        }

        @Override
        public byte[] getBranchQualifier() {
            return bqual.clone();
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Xid)) {
                return false;
            }
            Xid that = (Xid) o;
            return formatId == that.getFormatId()
                    && Arrays.equals(gtrid, that.getGlobalTransactionId())
                    && Arrays.equals(bqual, that.getBranchQualifier());
        }

        @Override
        public int hashCode() {
            return 31 * (31 * formatId + Arrays.hashCode(gtrid)) + Arrays.hashCode(bqual);
        }

        @Override
        public String toString() {
            return describe(this);
        }
    }
}
