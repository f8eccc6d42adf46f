/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * One record of the benchmark: a row {@code (id bigint primary key, k text, v bigint, ts timestamptz)}.
 * A Flink POJO (public fields, no-arg constructor) so that a keyed exchange (the upsert job) uses
 * Flink's POJO serializer, not Kryo. The timestamp travels as epoch milliseconds; {@link #ts()} makes
 * the {@code OffsetDateTime} that every sink binds, so they all pay the same for it.
 */
public final class BenchRow {

    public long id;
    public String k;
    public long v;
    public long tsMillis;

    public BenchRow() {}

    public BenchRow(long id, String k, long v, long tsMillis) {
        this.id = id;
        this.k = k;
        this.v = v;
        this.tsMillis = tsMillis;
    }

    public OffsetDateTime ts() {
        // Not OffsetDateTime.ofInstant: on JDK 17 it builds a new ZoneRules for every row (ZoneOffset.getRules),
        // the largest cost a profile of the Flink side showed. Every Flink sink of the benchmark calls this.
        LocalDateTime utc = LocalDateTime.ofEpochSecond(
                Math.floorDiv(tsMillis, 1000L), (int) Math.floorMod(tsMillis, 1000L) * 1_000_000, ZoneOffset.UTC);
        return OffsetDateTime.of(utc, ZoneOffset.UTC);
    }

    /** The values in column order, as the eosink row mapper returns them. */
    public Object[] toRow() {
        return new Object[] {id, k, v, ts()};
    }

    @Override
    public String toString() {
        return "BenchRow{id=" + id + ", k=" + k + ", v=" + v + ", tsMillis=" + tsMillis + "}";
    }
}
