/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.List;

/**
 * The resource's side of {@link CarriedWrites}: what it records of writes carried past a barrier and not
 * written since (see {@link EpochWriter#prepare}), for every subtask index of the sink id. A recovery role like
 * {@link Recovery}: its calls never run inside the epoch's transaction.
 */
@PublicEvolving
public interface CarriedLedger {

    /**
     * One notice per committed transaction that recorded carried writes, of any subtask index of this sink id,
     * until they are written or given up. Runs at start, between epochs, and within one (at the end of input:
     * then without touching the epoch's transaction).
     */
    List<CarriedNotice> openCarried() throws IOException;

    /**
     * Removes, in a transaction of its own, what the resource records of carried writes of subtask index {@code
     * subtask}: they are given up, and {@link #openCarried()} no longer shows them. For writes a restore
     * supersedes (it replays their records, or they belong to a line of history it abandons). Runs at start,
     * between epochs.
     */
    void closeCarried(int subtask) throws IOException;
}
