/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.io;

import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds every call the sink makes into the driver on one connection: a call that has not returned
 * within the network timeout, or whose thread was interrupted (Flink cancelling the task), has its
 * connection aborted from another thread, which ends the call with an I/O error.
 *
 * <p>Why not the driver's socketTimeout alone: it bounds reads only. A write into a peer that stopped
 * reading (a stalled network, a hung server) blocks in the kernel once the buffers in between are
 * full, forever, and neither a socket timeout nor a thread interrupt ends it; Flink's task
 * cancellation would then escalate to killing the whole TaskManager. {@code Connection.abort} closes
 * the socket, and that does end it ({@code TcpProxyITCase} pins both facts); over TLS only once the
 * socket is readied for an abortive close ({@link AbortiveClose}), without which closing a TLS socket
 * waits for the very write it should end ({@code IoWatchdogITCase}).
 *
 * <p>Aborts run on threads of their own, never on the timer: one abort that blocks (a connection whose
 * socket could not be readied) must not hold up the watchdogs of every other session in the JVM.
 */
@Internal
public final class IoWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger(IoWatchdog.class);

    private static final String INTERRUPTED = "was interrupted (the task is being cancelled)";

    /** How often a running call is looked at: the delay with which a cancelled task's call ends. */
    private static final long CHECK_MILLIS = 250;

    /**
     * One timer thread for every session of the JVM. It ends when idle for a while, so that a
     * finished job's classes are not held by a thread of theirs.
     */
    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private static ScheduledThreadPoolExecutor timer() {
        AtomicInteger n = new AtomicInteger();
        ScheduledThreadPoolExecutor timer =
                new ScheduledThreadPoolExecutor(1, r -> daemon(r, "eosink-io-watchdog-" + n.incrementAndGet()));
        timer.setKeepAliveTime(10, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /**
     * Runs the timer's aborts. Threads are made on demand (aborts are rare and one may block) and end
     * when idle for a while, like the timer's.
     */
    private static final ThreadPoolExecutor ABORTS = aborts();

    private static ThreadPoolExecutor aborts() {
        AtomicInteger n = new AtomicInteger();
        return new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                10,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                r -> daemon(r, "eosink-io-watchdog-abort-" + n.incrementAndGet()));
    }

    /**
     * A daemon thread that refers to nothing of the thread that happens to start it, usually a task's.
     * A new thread inherits its creator's context class loader (the job's user-code class loader), its
     * inheritable thread locals, and on Java 17 the protection domains of every class on the creator's
     * stack, each of which refers to its class loader: the job's classes are on a task's stack. When
     * the sink is in Flink's lib/, one timer serves every job of the TaskManager, and a thread made
     * during the first job would keep that job's class loader for as long as later jobs keep the
     * thread busy. {@code doPrivileged} limits what the new thread inherits to this class's domain.
     */
    @SuppressWarnings("removal") // AccessController: deprecated with the security manager; still what Thread uses on 17
    private static Thread daemon(Runnable r, String name) {
        return java.security.AccessController.doPrivileged((java.security.PrivilegedAction<Thread>) () -> {
            Thread t = new Thread(null, r, name, 0, false);
            t.setDaemon(true);
            t.setContextClassLoader(IoWatchdog.class.getClassLoader());
            return t;
        });
    }

    /** An abort that takes longer than this is logged when it ends: it was stuck, not just slow. */
    private static final long SLOW_ABORT_MILLIS = 1_000;

    /** A call into the driver. */
    @FunctionalInterface
    public interface SqlCall<T> {
        T call() throws SQLException;
    }

    private final Connection connection;
    private final Duration timeout; // ZERO: no time bound, only a cancelled task's call is aborted
    private final Object owner; // for the log line: the sink, subtask and attempt

    public IoWatchdog(Connection connection, Duration timeout, Object owner) {
        this.connection = connection;
        this.timeout = timeout;
        this.owner = owner;
    }

    /**
     * Runs {@code body} watched. When the watchdog aborted the connection, the driver's error is
     * replaced by one that says so (SQLSTATE 08006, connection failure, like the driver's own). So is
     * the driver's own read timeout ({@code socketTimeout}, which the sink sets to the network timeout
     * unless given): the two bounds race on a call that waits for an answer, and either way the user
     * reads which call the network timeout ended.
     */
    public <T> T call(String what, SqlCall<T> body) throws SQLException {
        Watch watch = new Watch(what, Thread.currentThread(), System.nanoTime() + timeout.toNanos());
        watch.future = TIMER.scheduleWithFixedDelay(watch::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        try {
            return body.call();
        } catch (SQLException e) {
            String why = watch.abortedBecause;
            if (why != null) {
                throw new SQLException(
                        what + " " + why + ", so the sink aborted the connection (" + e.getMessage() + ")", "08006", e);
            }
            if (readTimedOut(e)) {
                throw new SQLException(
                        what + " did not complete within the network timeout: the driver's read timed "
                                + "out (its socketTimeout"
                                + (timeout.isZero()
                                        ? ""
                                        : ", by default the network timeout of " + timeout.toSeconds() + " s")
                                + "; the database did not answer), so the connection is lost ("
                                + e.getMessage() + ")",
                        "08006",
                        e);
            }
            throw e;
        } finally {
            watch.done.set(true);
            watch.future.cancel(false);
        }
    }

    private static boolean readTimedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Aborts the connection now, for a caller that found its thread interrupted (Flink cancelling the
     * task) outside a driver call: the same end as a watched call gets, so that what the task does
     * next (Flink may clear the interrupt before it cleans up) never waits on this connection.
     */
    public SQLException abortInterrupted(String what) {
        // On the caller's thread: it waits for the abort, so that nothing it does next meets a live
        // connection. It is not the timer, and it holds no lock of the connection's socket.
        abort(what, INTERRUPTED);
        return new SQLException(what + " " + INTERRUPTED + ", so the sink aborted the connection", "08006");
    }

    private final class Watch {
        final String what;
        final Thread thread;
        final long deadlineNanos;
        final AtomicBoolean done = new AtomicBoolean();
        volatile ScheduledFuture<?> future;
        volatile String abortedBecause;

        Watch(String what, Thread thread, long deadlineNanos) {
            this.what = what;
            this.thread = thread;
            this.deadlineNanos = deadlineNanos;
        }

        void check() {
            String why = null;
            if (thread.isInterrupted()) {
                why = INTERRUPTED;
            } else if (!timeout.isZero() && System.nanoTime() - deadlineNanos >= 0) {
                why = "did not complete within the network timeout of " + timeout.toSeconds()
                        + " s (the database did not " + "answer, or the network took no more data)";
            }
            // The call may return just as this fires: the connection is then aborted after a call that
            // succeeded, and the next call fails as on a lost connection. That is safe (the task fails
            // over); never aborting a stuck call is not.
            if (why != null && done.compareAndSet(false, true)) {
                abort(why);
            }
        }

        private void abort(String why) {
            abortedBecause = why;
            try {
                ABORTS.execute(() -> IoWatchdog.this.abort(what, why));
            } catch (RejectedExecutionException e) {
                // Not expected (the pool is unbounded and never shut down); should it happen, aborting
                // on the timer beats not aborting at all.
                IoWatchdog.this.abort(what, why);
            }
        }
    }

    private void abort(String what, String why) {
        LOG.warn("{}: {} {}: aborting its connection", owner, what, why);
        long t0 = System.nanoTime();
        boolean readied = AbortiveClose.ready(connection, owner);
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{}: aborting the connection of {} failed; closing it instead", owner, what, e);
            try {
                connection.close();
            } catch (SQLException closeFailed) {
                e.addSuppressed(closeFailed);
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        if (millis >= SLOW_ABORT_MILLIS) {
            LOG.warn(
                    "{}: aborting the connection of {} took {} ms{}",
                    owner,
                    what,
                    millis,
                    readied ? "" : " (its socket could not be readied for an abortive close)");
        }
    }
}
