package dev.eosink.bench;

import java.time.Instant;
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
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(tsMillis), ZoneOffset.UTC);
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
