/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.PublicEvolving;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The PostgreSQL sink's ownership guard as an operator's tool sees it: each live writer subtask holds
 * the session-level advisory lock {@code (guardLockClass(sinkId), subtask)} on its connection, which
 * {@code pg_locks} shows as {@code locktype = 'advisory'}, {@code classid = guardLockClass(sinkId)}
 * (as an unsigned 32-bit number), {@code objid = subtask}, {@code objsubid = 2}. While any such lock
 * is granted, a job with that sink id is alive, and a tool must not finish its prepared transactions.
 */
@PublicEvolving
public final class PostgresOwnership {

    private PostgresOwnership() {}

    /** The advisory-lock class of a sink id: a stable 32-bit hash, the same in every job and tool. */
    public static int guardLockClass(String sinkId) {
        CRC32 crc = new CRC32();
        crc.update(("eosink/" + TransactionId.checkSinkId(sinkId)).getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }
}
