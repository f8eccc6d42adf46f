/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

/** Trace events for the histories the oracle's unit tests make up (the event's constructor is package-private). */
public final class TraceEvents {

    private TraceEvents() {}

    /** An event of subtask 0, attempt 0. */
    public static ProtocolTrace.Event event(
            long seq, ProtocolTrace.Kind kind, String gid, String outcome, long... ids) {
        return new ProtocolTrace.Event(seq, kind, 0, 0, gid, outcome, ids);
    }
}
