/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.util.List;

/**
 * Upserts and deletes that a writer carried past a barrier in checkpoint state, which this sink
 * cannot write: corrupt, of a newer release, or carried for other columns, another key or another
 * write mode. A restart would only read the same state again, so the sinks fail the job without one.
 * Each sink keeps its carried statements in a format of its own; the refusals read alike.
 */
@Internal
public final class CarriedStatementsRefused extends IOException {
    private static final long serialVersionUID = 1L;

    public CarriedStatementsRefused(String message) {
        super(message);
    }

    public CarriedStatementsRefused(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The state's format version is not the one this release reads.
     *
     * @param found the version byte found, or "none" for empty state
     */
    public static CarriedStatementsRefused unknownVersion(String found, int reads) {
        return new CarriedStatementsRefused("they were carried in a format this release does not know (version "
                + found + ", this release reads " + reads + "): the checkpoint was written by a newer release; "
                + "restore it with the release that took it");
    }

    /**
     * The statements were carried for other columns or another key than this sink's: written here,
     * their values would land in the wrong columns.
     *
     * @param carriedKey the carried key as the format keeps it ("the key [id]", "1 key column(s)")
     * @param key this sink's key, described alike
     */
    public static CarriedStatementsRefused otherColumns(
            List<String> carriedColumns, String carriedKey, List<String> columns, String key) {
        return new CarriedStatementsRefused("they were carried for the columns " + carriedColumns + " with "
                + carriedKey + ", and this sink writes " + columns + " with " + key + ". Remedy: restore with the "
                + "columns and key of the job that took the checkpoint, or restore without this sink's state "
                + "(--allowNonRestoredState with a new operator uid)");
    }
}
