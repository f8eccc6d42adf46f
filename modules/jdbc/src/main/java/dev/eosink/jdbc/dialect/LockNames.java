/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The names and keys of a sink's session locks ({@link SessionLocks}), the same for every dialect and for the
 * admin tool that looks them up: a lock is named after a hash of the sink id, which fits every database's limit on
 * lock names (MariaDB's and MySQL's 64 characters) where the id might not.
 */
@PublicEvolving
public final class LockNames {

    private LockNames() {}

    /** 16 hex digits (64 bits) of SHA-256 over the sink id; also what an XA branch's gtrid carries. */
    public static String sinkHash(String sinkId) {
        return HexFormat.of().formatHex(sha256("eosink/" + TransactionId.checkSinkId(sinkId)), 0, 8);
    }

    /** The name of the ownership guard of a sink (by its {@link #sinkHash}) and subtask index. */
    public static String guard(String sinkHash, int subtask) {
        return "eosink/" + sinkHash + "/" + subtask;
    }

    /** The name of the branch lock of a sink (by its {@link #sinkHash}) and subtask index. */
    public static String branch(String sinkHash, int subtask) {
        return guard(sinkHash, subtask) + "/branch";
    }

    /**
     * The name of the execution mark of session {@code session} of execution {@code execution} (eight characters:
     * {@code TransactionId.executionTag}) of a sink: at most 7 + 16 + 3 + 8 + 1 + 20 = 55 characters.
     */
    public static String executionMark(String sinkHash, String execution, long session) {
        return "eosink/" + sinkHash + "/x/" + execution + "/" + session;
    }

    /**
     * The execution mark of a sink ({@code sinkKey}: its id, or its hash) and execution as one 64-bit key, for
     * databases whose session locks are keyed by numbers: 64 bits of SHA-256 of both.
     */
    public static long executionMarkKey(String sinkKey, String execution) {
        return ByteBuffer.wrap(sha256("eosink-execution/" + sinkKey + "/" + execution))
                .getLong();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
