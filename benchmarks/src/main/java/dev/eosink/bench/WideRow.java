/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * One record of the 20-column variant of the append workload (the row-width sweep): the 4 columns of
 * {@link BenchRow} with the same values, plus 16 of mixed types, each a pure function of the record
 * index i. A Flink POJO like {@link BenchRow}; timestamps travel as epoch milliseconds and the numeric
 * as its unscaled value (cents), and {@link #toRow()} and {@link #BIND} make the objects every sink
 * binds, so they all pay the same for them.
 */
public final class WideRow {

    static final int COLUMN_COUNT = 20;

    /** In table order; the first four are {@link Workload#COLUMNS}. */
    static final String COLUMNS = "id, k, v, ts, b1, b2, b3, i1, i2, i3, d1, d2, t1, t2, t3, ts2, ts3, f1, f2, n1";

    private static final String[] STATUS = {"new", "open", "paid", "shipped"};

    public long id;
    public String k;
    public long v;
    public long tsMillis;
    public long b1;
    public long b2;
    public long b3;
    public int i1;
    public int i2;
    public int i3;
    public double d1;
    public double d2;
    public String t1;
    public String t2;
    public String t3;
    public long ts2Millis;
    public long ts3Millis;
    public boolean f1;
    public boolean f2;
    /** numeric(14,2): n1Cents / 100. */
    public long n1Cents;

    public WideRow() {}

    static String createTable(String table) {
        return "CREATE TABLE " + table + " (id bigint PRIMARY KEY, k text, v bigint, ts timestamptz, "
                + "b1 bigint, b2 bigint, b3 bigint, i1 integer, i2 integer, i3 integer, "
                + "d1 double precision, d2 double precision, t1 text, t2 text, t3 text, "
                + "ts2 timestamptz, ts3 timestamptz, f1 boolean, f2 boolean, n1 numeric(14,2))";
    }

    /** Record i (append only: id = i). The first four values are those of {@link Workload#row}. */
    static WideRow of(long i) {
        long h = Workload.mix(i);
        WideRow r = new WideRow();
        r.id = i;
        r.k = "k" + Long.toHexString(h);
        r.v = i;
        r.tsMillis = Workload.BASE_MILLIS + i;
        r.b1 = i * 1_000_003L;
        r.b2 = h;
        r.b3 = -i;
        r.i1 = (int) (i % 100_000);
        r.i2 = i2(i);
        r.i3 = (int) (i % 7) - 3;
        r.d1 = i / 8.0;
        r.d2 = (h >>> 11) * 0x1.0p-53;
        r.t1 = "row-" + i;
        r.t2 = Long.toHexString(h ^ (h >>> 17));
        r.t3 = STATUS[(int) (h & 3)];
        r.ts2Millis = Workload.BASE_MILLIS + i * 1000L;
        r.ts3Millis = Workload.BASE_MILLIS - i * 60_000L;
        r.f1 = (i & 1) == 0;
        r.f2 = h % 3 == 0;
        r.n1Cents = i;
        return r;
    }

    /** Column i2 of record i (checked after the run: its sum). */
    static int i2(long i) {
        return (int) (Workload.mix(i) >>> 33);
    }

    /** As {@link BenchRow#ts()}: not OffsetDateTime.ofInstant, which is slow on JDK 17. */
    static OffsetDateTime utc(long millis) {
        LocalDateTime utc = LocalDateTime.ofEpochSecond(
                Math.floorDiv(millis, 1000L), (int) Math.floorMod(millis, 1000L) * 1_000_000, ZoneOffset.UTC);
        return OffsetDateTime.of(utc, ZoneOffset.UTC);
    }

    /** The values in column order, as the eosink row mapper returns them. */
    public Object[] toRow() {
        return new Object[] {
            id,
            k,
            v,
            utc(tsMillis),
            b1,
            b2,
            b3,
            i1,
            i2,
            i3,
            d1,
            d2,
            t1,
            t2,
            t3,
            utc(ts2Millis),
            utc(ts3Millis),
            f1,
            f2,
            BigDecimal.valueOf(n1Cents, 2)
        };
    }

    /** Binds the 20 values to an INSERT with 20 parameters in column order (the peer sinks). */
    static void bind(java.sql.PreparedStatement ps, WideRow r) throws java.sql.SQLException {
        ps.setLong(1, r.id);
        ps.setString(2, r.k);
        ps.setLong(3, r.v);
        ps.setObject(4, utc(r.tsMillis));
        ps.setLong(5, r.b1);
        ps.setLong(6, r.b2);
        ps.setLong(7, r.b3);
        ps.setInt(8, r.i1);
        ps.setInt(9, r.i2);
        ps.setInt(10, r.i3);
        ps.setDouble(11, r.d1);
        ps.setDouble(12, r.d2);
        ps.setString(13, r.t1);
        ps.setString(14, r.t2);
        ps.setString(15, r.t3);
        ps.setObject(16, utc(r.ts2Millis));
        ps.setObject(17, utc(r.ts3Millis));
        ps.setBoolean(18, r.f1);
        ps.setBoolean(19, r.f2);
        ps.setBigDecimal(20, BigDecimal.valueOf(r.n1Cents, 2));
    }

    @Override
    public String toString() {
        return "WideRow{id=" + id + ", k=" + k + ", v=" + v + ", ...}";
    }
}
