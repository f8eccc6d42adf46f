/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.Optional;

/**
 * The writer's side of {@link CarriedWrites}: the writes an {@link EpochWriter} holds past a barrier, and the
 * writing of what a restored writer state carried. Only a session that {@link OwnCommits#await() waits} for its
 * own commits holds any: writes that must follow the commit of an earlier transaction of this writer, when that
 * commit comes only with a later checkpoint (the earlier one's was aborted, or was a plain savepoint). The writer
 * keeps them in the checkpoint's state, and the session writes them into a later epoch once that commit is done.
 */
@PublicEvolving
public interface HeldWrites {

    /**
     * The writes this session holds past the barrier that just prepared its transaction, encoded as it likes;
     * empty when it holds none. Called when Flink snapshots the writer, right after {@link EpochWriter#prepare}
     * (or after {@link EpochWriter#flush} when the epoch wrote nothing), and at the end of input, where writes
     * still held could never be written.
     */
    Optional<byte[]> carried() throws IOException;

    /**
     * Whether the session holds writes past the last barrier, what {@link #carried()} would encode; cheap,
     * asked at every flush. When it does and they may run, the writer begins an epoch for them even if no
     * record comes ({@link EpochWriter#begin}, then {@link EpochWriter#flush}, then {@link EpochWriter#prepare}
     * with 0 rows).
     */
    boolean holdsWrites();

    /**
     * Writes what a writer of this sink carried in a restored checkpoint's state ({@link #carried()}), in a
     * transaction of its own, committed before it returns, which also removes what the resource records of the
     * carried writes of subtask index {@code subtask}, so that {@link CarriedLedger#openCarried()} no longer shows
     * them. Runs at start, before the first record, once no transaction of the writer that carried them is
     * prepared any more (the restored committers committed those its checkpoint promised, recovery rolled back
     * the rest), and before any checkpoint of the run: a write of the same key that the restored sources replay
     * comes later, and no epoch of the run commits before it. After a rescale, another subtask may own those keys
     * now; a session refuses, rather than waits, when such a write got there first (see the implementation).
     *
     * @param subtask the subtask index of the writer that carried them
     * @param origin the snapshot that carried them, for messages
     * @throws IOException when the writes fail; nothing of them is committed then
     */
    void applyCarried(byte[] carried, int subtask, String origin) throws IOException;
}
