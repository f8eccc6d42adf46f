/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The demo's verdict, computed independently of Flink: the expected output comes from the same pure
 * generator function, the actual output from the table, and the two are compared row by row.
 */
public final class Verdict {

    public final String job;
    public final long expected;
    public final long rows;
    public final long duplicates;
    public final long missing;
    public final long unexpected;
    public final long wrong;
    public final long preparedLeft;

    private Verdict(
            String job,
            long expected,
            long rows,
            long duplicates,
            long missing,
            long unexpected,
            long wrong,
            long preparedLeft) {
        this.job = job;
        this.expected = expected;
        this.rows = rows;
        this.duplicates = duplicates;
        this.missing = missing;
        this.unexpected = unexpected;
        this.wrong = wrong;
        this.preparedLeft = preparedLeft;
    }

    public boolean exact() {
        return rows == expected
                && duplicates == 0
                && missing == 0
                && unexpected == 0
                && wrong == 0
                && preparedLeft == 0;
    }

    /**
     * What must hold of a job stopped mid-way (stop-with-savepoint): every row committed is right and
     * once, and nothing is left prepared; rows of what came after the stop are missing, for the
     * resumed run to write.
     */
    public boolean consistent() {
        return duplicates == 0 && unexpected == 0 && wrong == 0 && preparedLeft == 0;
    }

    /** The verdict of a job stopped mid-way: {@link #consistent()}, and how far it got. */
    public String describeStopped() {
        String what = "windows".equals(job) ? "windows" : "events";
        return String.format(
                "%s: %,d of %,d %s committed before the stop; duplicates %,d, unexpected %,d, wrong %s %,d, "
                        + "prepared transactions left %,d => %s",
                job,
                rows,
                expected,
                what,
                duplicates,
                unexpected,
                "windows".equals(job) ? "sums" : "values",
                wrong,
                preparedLeft,
                consistent() ? "CONSISTENT (the resumed run writes the rest)" : "NOT CONSISTENT");
    }

    @Override
    public String toString() {
        String what = "windows".equals(job) ? "windows" : "events";
        return String.format(
                "%s: expected %,d %s, table has %,d rows; duplicates %,d, missing %,d, unexpected %,d, wrong %s %,d, "
                        + "prepared transactions left %,d => %s",
                job,
                expected,
                what,
                rows,
                duplicates,
                missing,
                unexpected,
                "windows".equals(job) ? "sums" : "values",
                wrong,
                preparedLeft,
                exact() ? "EXACT" : "NOT EXACT");
    }

    /** Checks {@code table} against the output of {@code events} orders of {@code generator}. */
    public static Verdict check(
            Connection c, String job, String table, String sinkId, OrderGenerator generator, long events)
            throws SQLException {
        long prepared = prepared(c, sinkId);
        return "events".equals(job)
                ? events(c, table, generator, events, prepared)
                : windows(c, table, generator, events, prepared);
    }

    /**
     * Checks the windows job's {@code table} against the windowed totals of {@code orders}, wherever they
     * come from (the Kafka demo reads them back from its topic).
     */
    public static Verdict checkWindows(Connection c, String table, String sinkId, Iterable<Order> orders)
            throws SQLException {
        Map<Long, long[]> expected = new HashMap<>();
        orders.forEach(o -> add(expected, o));
        return windows(c, table, expected, prepared(c, sinkId));
    }

    private static Verdict windows(Connection c, String table, OrderGenerator generator, long events, long prepared)
            throws SQLException {
        Map<Long, long[]> expected = new HashMap<>();
        for (long i = 0; i < events; i++) {
            add(expected, generator.order(i));
        }
        return windows(c, table, expected, prepared);
    }

    /** Adds an order to the expected totals of its customer's window. */
    private static void add(Map<Long, long[]> expected, Order o) {
        long window = Jobs.WINDOW.toMillis();
        long start = o.eventTimeMillis - Math.floorMod(o.eventTimeMillis, window);
        long[] t = expected.computeIfAbsent(key(o.customer, start), k -> new long[2]);
        t[0]++;
        t[1] += o.amountCents;
    }

    private static Verdict windows(Connection c, String table, Map<Long, long[]> expected, long prepared)
            throws SQLException {
        DemoDatabase db = DemoDatabase.of(c);
        long rows = 0;
        long duplicates = 0;
        long unexpected = 0;
        long wrong = 0;
        Set<Long> seen = new HashSet<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT customer, " + db.epochMillis("window_start")
                        + ", order_count, amount_cents FROM " + db.quote(table))) {
            while (rs.next()) {
                rows++;
                long key = key(rs.getInt(1), rs.getLong(2));
                if (!seen.add(key)) {
                    duplicates++;
                    continue;
                }
                long[] want = expected.get(key);
                if (want == null) {
                    unexpected++;
                } else if (want[0] != rs.getLong(3) || want[1] != rs.getLong(4)) {
                    wrong++;
                }
            }
        }
        long missing = expected.keySet().stream().filter(k -> !seen.contains(k)).count();
        return new Verdict("windows", expected.size(), rows, duplicates, missing, unexpected, wrong, prepared);
    }

    private static Verdict events(Connection c, String table, OrderGenerator generator, long events, long prepared)
            throws SQLException {
        long rows = 0;
        long duplicates = 0;
        long unexpected = 0;
        long wrong = 0;
        java.util.BitSet seen = new java.util.BitSet();
        DemoDatabase db = DemoDatabase.of(c);
        try (Statement s = c.createStatement()) {
            s.setFetchSize(10_000);
            c.setAutoCommit(false); // a cursor, not the whole table in memory
            try (ResultSet rs = s.executeQuery("SELECT order_id, customer, amount_cents, "
                    + db.epochMillis("event_time") + " FROM " + db.quote(table))) {
                while (rs.next()) {
                    rows++;
                    long id = rs.getLong(1);
                    if (id < 0 || id >= events || id > Integer.MAX_VALUE) {
                        unexpected++;
                        continue;
                    }
                    if (seen.get((int) id)) {
                        duplicates++;
                        continue;
                    }
                    seen.set((int) id);
                    Order want = generator.order(id);
                    if (want.customer != rs.getInt(2)
                            || want.amountCents != rs.getLong(3)
                            || want.eventTimeMillis != rs.getLong(4)) {
                        wrong++;
                    }
                }
            } finally {
                c.commit();
                c.setAutoCommit(true);
            }
        }
        long missing = events - seen.cardinality();
        return new Verdict("events", events, rows, duplicates, missing, unexpected, wrong, prepared);
    }

    static long prepared(Connection c, String sinkId) throws SQLException {
        return DemoDatabase.of(c).prepared(c, sinkId).size();
    }

    private static long key(int customer, long windowStart) {
        return windowStart * 4096 + customer; // customers < 4096, window starts are multiples of 10 s
    }
}
