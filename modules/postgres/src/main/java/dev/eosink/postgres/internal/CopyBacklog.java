/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.io.IoWatchdog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Flow control of a streaming COPY: keeps the data the server has received but not yet read under a
 * bound, so that ending the COPY at a barrier is quick.
 *
 * <p>Why: COPY streams rows and the server answers only when the COPY ends. When the server is the
 * slower side, what it has not stored yet waits in its socket's receive queue, which its kernel grows
 * to megabytes (1.35 MB measured here at parallelism 2, about 55 ms of one backend's work). Ending the
 * COPY at the barrier waits for all of it before PREPARE can run; the client cannot bound that queue
 * through TCP (the receiver sizes its window). So the writer asks the server how far it got:
 * {@code pg_stat_progress_copy.bytes_processed} (PostgreSQL 14+), the bytes its COPY has read so far,
 * from a second connection. When more than {@code maxBytes} is sent and unread, the writer waits
 * until at most half of it is, sleeping for the time the server needs at its measured pace.
 *
 * <p>Why not end the COPY every few hundred kilobytes instead (which needs no second connection):
 * each end is a stop-and-wait, the pipeline drains and refills; measured here 11% slower with 1 MB
 * statements and 26% with 256 KB. Reading the progress costs a query per few sends while throttled.
 *
 * <p>It never fails the sink and never changes what is written: a missing view (before 14), a
 * progress row the role may not read, or any error of the monitor connection turn flow control off
 * for the writer's session, with one warning; the socket's own backpressure then paces the writer,
 * as without it. When the server makes no progress at all for {@link #STALL_NANOS} (a COPY waiting
 * for a lock), the writer stops waiting and sends: it then blocks in the socket, where the writer's
 * network timeout watches it.
 */
final class CopyBacklog {

    private static final Logger LOG = LoggerFactory.getLogger(CopyBacklog.class);

    /** Opens the monitor connection, lazily, when the backlog first exceeds its bound. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    /** Without progress for this long, the writer stops waiting (see the class comment). */
    static final long STALL_NANOS = 100_000_000L;

    private static final long MIN_SLEEP_NANOS = 200_000L;
    private static final long MAX_SLEEP_NANOS = 5_000_000L;
    /**
     * The monitor's queries are tiny: one that takes longer finds the server or network in trouble, and
     * its watchdog aborts the connection (no session setting: a DataSource's pool may hand it on).
     */
    private static final Duration MONITOR_TIMEOUT = Duration.ofSeconds(10);

    private final Opener opener;
    private final long maxBytes;
    private final Object owner;

    private Connection monitor;
    private IoWatchdog monitorIo;
    private PreparedStatement progress;
    private int pid;
    private boolean off;

    /** Of the running COPY: bytes sent, and the bytes the server last said it had read. */
    private long sent;

    private long read;
    /** When {@link #read} was read (0: not yet in this COPY). */
    private long readAt;
    /** The server's pace in bytes per nanosecond, from the last two readings that showed progress. */
    private double pace = 20e-3; // 20 MB/s until measured
    /** The last wait ended because the server made no progress: do not wait again until it does. */
    private boolean stalled;
    /** {@link #STALL_NANOS}, unless a test sets another. */
    private final long stallNanos;

    /**
     * {@link #sent} minus {@link #read} as of the last send or reading, 0 between COPYs and while flow
     * control is off (nothing is ever read then): the writer's {@code copyBacklogBytes} gauge reads it
     * on the metric reporter's thread, hence volatile, and never causes a query.
     */
    private volatile long unconfirmed;

    /** Of the epoch (reset by {@link #epochStats()}): waits, the time spent in them, progress readings. */
    private long waits;

    private long waitedNanos;
    private long readings;

    /** {@code maxBytes} 0 turns flow control off. */
    CopyBacklog(Opener opener, long maxBytes, Object owner) {
        this(opener, maxBytes, owner, STALL_NANOS);
    }

    /**
     * With another time without progress after which the writer stops waiting: for tests whose server may
     * pause longer than {@link #STALL_NANOS} on a busy machine while they measure the bound.
     */
    CopyBacklog(Opener opener, long maxBytes, Object owner, long stallNanos) {
        this.opener = opener;
        this.maxBytes = maxBytes;
        this.owner = owner;
        this.off = maxBytes <= 0;
        this.stallNanos = stallNanos;
    }

    /** A COPY started on the session whose backend has this process id: its progress counts from 0. */
    void started(int backendPid) {
        this.pid = backendPid;
        sent = 0;
        read = 0;
        readAt = 0;
        stalled = false;
        unconfirmed = 0;
    }

    /** The COPY ended or was cancelled: nothing of it is in flight any more. */
    void ended() {
        unconfirmed = 0;
    }

    /** Bytes sent to the running COPY that the server has not yet confirmed it read (see {@link #unconfirmed}). */
    long unconfirmed() {
        return unconfirmed;
    }

    /** False once flow control turned off (or was never on). */
    boolean isOn() {
        return !off;
    }

    /** {@code total} bytes are sent to the COPY so far; waits while too much of it is unread. */
    void sent(long total) {
        sent = total;
        try {
            throttle();
        } finally {
            unconfirmed = off ? 0 : Math.max(0, sent - read);
        }
    }

    private void throttle() {
        if (off || sent - read <= maxBytes) {
            return;
        }
        long start = System.nanoTime();
        long progressAt = start;
        try {
            while (!Thread.currentThread().isInterrupted()) { // cancelled: the next driver call fails over
                long r = readProgress();
                long now = System.nanoTime();
                if (r < 0) {
                    return; // no COPY of this backend in the view: nothing to wait for
                }
                if (r > read) {
                    if (readAt != 0) {
                        pace = Math.max(1e-3, (r - read) / (double) Math.max(1, now - readAt));
                    }
                    read = r;
                    readAt = now;
                    progressAt = now;
                    stalled = false;
                } else if (stalled || now - progressAt > stallNanos) {
                    // Not reading at all (a lock wait, say): let the socket block, watched by the network
                    // timeout; one reading per send until the server moves again.
                    stalled = true;
                    return;
                }
                if (sent - read <= maxBytes / 2) {
                    return;
                }
                long unread = sent - read;
                long sleep = (long) ((unread - maxBytes / 2) / pace);
                LockSupport.parkNanos(Math.max(MIN_SLEEP_NANOS, Math.min(MAX_SLEEP_NANOS, sleep)));
            }
        } finally {
            waits++;
            waitedNanos += System.nanoTime() - start;
        }
    }

    /** The server's bytes_processed of this backend's COPY, or -1 when it shows none; turns off on trouble. */
    private long readProgress() {
        try {
            if (progress == null) {
                openMonitor();
                if (off) {
                    return -1;
                }
            }
            readings++;
            return monitorIo.call("reading the COPY's progress", () -> {
                progress.setInt(1, pid);
                try (ResultSet rs = progress.executeQuery()) {
                    if (!rs.next()) {
                        return -1L;
                    }
                    long bytes = rs.getLong(1);
                    if (rs.wasNull()) {
                        turnOff(
                                "the role may not read the progress of its own COPY session in pg_stat_progress_copy",
                                null);
                        return -1L;
                    }
                    return bytes;
                }
            });
        } catch (SQLException | RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                close(); // the task is being cancelled (the monitor's watchdog aborted the reading): no warning
                return -1;
            }
            turnOff("reading pg_stat_progress_copy failed: " + e.getMessage(), e);
            return -1;
        }
    }

    private void openMonitor() throws SQLException {
        monitor = opener.open();
        monitor.setAutoCommit(true); // each reading in its own transaction: a fresh snapshot of the statistics
        // Aborts go to pgjdbc's connection under a pool's wrapper, as the writer's (see SessionEnd).
        monitorIo = new IoWatchdog(SessionEnd.physical(monitor), MONITOR_TIMEOUT, owner + " (COPY flow control)");
        int version = monitor.getMetaData().getDatabaseMajorVersion();
        if (version < 14) {
            turnOff("PostgreSQL " + version + " has no pg_stat_progress_copy (14+)", null);
            return;
        }
        progress = monitor.prepareStatement("SELECT bytes_processed FROM pg_stat_progress_copy WHERE pid = ?");
    }

    private void turnOff(String why, Exception e) {
        if (!off) {
            off = true;
            LOG.warn(
                    "{}: COPY flow control is off for this writer: {}. Rows are still written; only the time to end "
                            + "a COPY at a checkpoint barrier is no longer bounded (see the builder's maxCopyBacklog).",
                    owner,
                    why);
            if (e != null) {
                LOG.debug("{}: why COPY flow control turned off", owner, e);
            }
        }
        close();
    }

    /** Waits, time waited and progress readings since the last call, for the prepare's debug line. */
    String epochStats() {
        String s = waits == 0
                ? "no waits"
                : waits + " waits, " + waitedNanos / 1_000_000 + " ms, " + readings + " readings";
        waits = 0;
        waitedNanos = 0;
        readings = 0;
        return s;
    }

    /**
     * Closes the monitor connection. From a pooling DataSource it goes back to the pool alive, unlike
     * the writer's (SessionEnd): it holds no lock and no transaction (each reading autocommits) and
     * sets no session setting but application_name, so the pool may lend it to anyone. One aborted by
     * its watchdog goes back dead, which the pool finds and discards.
     */
    void close() {
        Connection c = monitor;
        monitor = null;
        progress = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.debug("{}: closing the COPY flow control connection failed", owner, e);
            }
        }
    }
}
