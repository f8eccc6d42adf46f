/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import javax.transaction.xa.Xid;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The Xid of a prepared branch as Jaybird stores it in {@code RDB$TRANSACTIONS.RDB$TRANSACTION_DESCRIPTION} (read
 * from Jaybird 6.0.3's {@code FBXid}, and checked against the Xids its {@code recover} returns): byte 1, byte 5,
 * the format id (4 bytes, big-endian), byte 6, the length of the global transaction id (4 bytes) and its bytes,
 * byte 4, the length of the branch qualifier (4 bytes) and its bytes.
 */
final class FirebirdXids {

    private FirebirdXids() {}

    /** The Xid a description holds, as {@link #key}; empty for a description of another layout. */
    static Optional<String> decode(byte[] description) {
        try {
            ByteBuffer b = ByteBuffer.wrap(description);
            if (b.get() != 1 || b.get() != 5) {
                return Optional.empty();
            }
            int formatId = b.getInt();
            if (b.get() != 6) {
                return Optional.empty();
            }
            byte[] gtrid = new byte[b.getInt()];
            b.get(gtrid);
            if (b.get() != 4) {
                return Optional.empty();
            }
            byte[] bqual = new byte[b.getInt()];
            b.get(bqual);
            return Optional.of(key(formatId, gtrid, bqual));
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            return Optional.empty();
        }
    }

    /** An Xid as a value: format id, gtrid and bqual in hex. */
    static String key(Xid xid) {
        return key(xid.getFormatId(), xid.getGlobalTransactionId(), xid.getBranchQualifier());
    }

    private static String key(int formatId, byte[] gtrid, byte[] bqual) {
        HexFormat hex = HexFormat.of();
        return formatId + "/" + hex.formatHex(gtrid) + "/" + hex.formatHex(bqual);
    }
}
