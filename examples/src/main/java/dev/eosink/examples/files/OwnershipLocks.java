/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * One writer session's ownership guards: an exclusive lock ({@link FileChannel#tryLock()}) on the lock
 * file of each subtask index it claimed, held as long as the session lives. The operating system keeps
 * such a lock per process and drops it when the process dies, however it died, so a second job with
 * the same sink id cannot take it while the first one runs, on any machine that sees the same files
 * with working locks (a local disk; NFS only with its lock manager).
 *
 * <p>Within one JVM the operating system cannot tell two sessions apart (its locks belong to the
 * process), and the JVM refuses a second lock on a file it already locks ({@link
 * OverlappingFileLockException}). So the JVM's holders are also kept here, by lock file, and a claim
 * looks there first: a file held in this JVM is never opened again, because closing any channel of a
 * locked file may drop the process's lock on it. The exception still counts as "held", for a session
 * of another class loader (another job on a session cluster) that holds it.
 *
 * <p>A holder says who it is, in this JVM's map and in the lock file (for a claim from another process):
 * which session, and of which execution of the job ({@link SubtaskContext#execution()}). A claim that
 * gives up on a guard held by another execution refuses with a {@link MisconfigurationException} (a
 * second job: no restart helps); one held by its own execution (an earlier attempt going away) or by a
 * holder that did not say fails the task, and a restart waits again.
 */
final class OwnershipLocks implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OwnershipLocks.class);

    /** Lock file -> who holds it in this JVM (or is taking it right now). */
    private static final Map<Path, Holder> HELD_IN_THIS_JVM = new ConcurrentHashMap<>();

    /** The line of a lock file that names the holder's execution. */
    private static final String EXECUTION = "execution ";

    /** Numbers the sessions of this JVM, so that two of one subtask (a restart) never pass for each other. */
    private static final AtomicLong SESSIONS = new AtomicLong();

    private final SinkDirectory directory;
    private final SubtaskContext context;
    private final Holder me;
    private final Map<Integer, Held> held = new HashMap<>();

    OwnershipLocks(SinkDirectory directory, SubtaskContext context) {
        this.directory = directory;
        this.context = context;
        this.me = new Holder(
                context + " of job " + context.jobId() + ", process "
                        + ManagementFactory.getRuntimeMXBean().getName() + ", session " + SESSIONS.incrementAndGet(),
                context.execution());
    }

    /** How many guards of {@code sinkId} in {@code base} sessions of this JVM hold: for tests and tools. */
    static long heldInThisJvm(Path base, String sinkId) {
        Path locks = new SinkDirectory(base).lock(sinkId, 0).getParent();
        return HELD_IN_THIS_JVM.keySet().stream()
                .filter(p -> p.getParent().equals(locks)
                        && p.getFileName().toString().startsWith(sinkId + "+"))
                .count();
    }

    /** Takes the guard of {@code subtask}, waiting up to {@code waitMillis} for a holder going away. */
    void claim(int subtask, long waitMillis) throws SinkException {
        if (held.containsKey(subtask)) {
            return; // claimed before by this session: a guard is the session's until it ends
        }
        Path file = directory.lock(context.sinkId(), subtask);
        long deadline = System.currentTimeMillis() + waitMillis;
        long nextLog = 0;
        while (true) {
            Holder holder = tryLock(subtask, file);
            if (holder == null) {
                return;
            }
            long now = System.currentTimeMillis();
            if (now >= nextLog && now < deadline) {
                // A task going away releases it within seconds; a live job holding it is a second job.
                LOG.info(
                        "{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} ({})",
                        context,
                        deadline - now,
                        context.sinkId(),
                        subtask,
                        holder.description);
                nextLog = now + 5_000;
            }
            if (now >= deadline) {
                throw notReleased(subtask, waitMillis, holder);
            }
            try {
                Thread.sleep(Math.min(100, Math.max(1, deadline - now)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SinkException(context + ": interrupted while waiting for the ownership guard", e);
            }
        }
    }

    /** Why the claim of {@code subtask} gave up, by whose execution holds the guard. */
    private SinkException notReleased(int subtask, long waitMillis, Holder holder) {
        String held = context + ": another live session holds the ownership guard of sink id '" + context.sinkId()
                + "' subtask " + subtask + " (" + holder.description + ") and did not release it within " + waitMillis
                + " ms";
        if (holder.execution == null) {
            return new SinkException(held + ". Two jobs with the same sink id would roll back each other's "
                    + "transactions, so this one refuses to start. Remedy: stop the other job, or give this sink a "
                    + "different sink id.");
        }
        if (holder.execution.equals(context.execution())) {
            return new SinkException(held + ": a session of an earlier attempt of this job, which is going away. "
                    + "The task fails and the restarted one waits for it again. Remedy: if it stays, end the process "
                    + "that holds the lock file, or raise claimWait.");
        }
        return new MisconfigurationException(held + ": a session of another execution (another job, or another "
                + "submission of this job). Two jobs with the same sink id would roll back each other's transactions, "
                + "so this one refuses to start, and fails without restarts: each would find the same. Remedy: stop "
                + "the other job, or give this sink a different sink id.");
    }

    /** Null once this session holds the lock; else who holds it. */
    private Holder tryLock(int subtask, Path file) throws SinkException {
        Holder other = HELD_IN_THIS_JVM.putIfAbsent(file, me);
        if (other != null) {
            return other.in(file);
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldByAnotherClassLoader) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                HELD_IN_THIS_JVM.remove(file, me);
                return holderWritten(file).in(file);
            }
            // Who holds it, for the message of a session that waits for it in another process.
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap(
                            (me.description + "\n" + EXECUTION + me.execution + "\n").getBytes(StandardCharsets.UTF_8)),
                    0);
            held.put(subtask, new Held(file, channel, lock));
            return null;
        } catch (IOException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            HELD_IN_THIS_JVM.remove(file, me);
            throw new SinkException(
                    context + ": could not take the ownership guard of subtask " + subtask
                            + " (lock file " + file + "): " + e.getMessage()
                            + ". Remedy: the sink needs to create and lock "
                            + "files in " + file.getParent(),
                    e);
        }
    }

    /**
     * Who the holder wrote into the lock file; only called when no session of this JVM holds it. Its
     * execution is unknown when it wrote none (yet).
     */
    private static Holder holderWritten(Path file) {
        try {
            List<String> lines = Files.readString(file, StandardCharsets.UTF_8)
                    .strip()
                    .lines()
                    .collect(Collectors.toList());
            if (lines.isEmpty()) {
                return new Holder("another process", null);
            }
            String execution = lines.size() > 1 && lines.get(1).startsWith(EXECUTION)
                    ? lines.get(1).substring(EXECUTION.length())
                    : null;
            return new Holder(lines.get(0), execution);
        } catch (IOException e) {
            return new Holder("another process (" + e.getMessage() + ")", null);
        }
    }

    /** Releases the guard of an adopted {@code subtask}; the own subtask's goes when the session closes. */
    void release(int subtask) throws SinkException {
        Held h = held.remove(subtask);
        if (h != null) {
            try {
                h.release();
            } catch (IOException e) {
                throw new SinkException(
                        context + ": could not release the guard of subtask " + subtask + " (lock file " + h.file + ")",
                        e);
            }
        }
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (Held h : held.values()) {
            try {
                h.release();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        held.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** A session that holds, or takes, a lock: for messages, and its execution (null: it did not say). */
    private static final class Holder {
        final String description;
        final String execution;

        Holder(String description, String execution) {
            this.description = description;
            this.execution = execution;
        }

        /** The same holder, described as the holder of {@code file}. */
        Holder in(Path file) {
            return new Holder("lock file " + file + ", held by " + description, execution);
        }
    }

    /** A lock this session holds. */
    private final class Held {
        final Path file;
        final FileChannel channel;
        final FileLock lock;

        Held(Path file, FileChannel channel, FileLock lock) {
            this.file = file;
            this.channel = channel;
            this.lock = lock;
        }

        void release() throws IOException {
            try {
                lock.release();
                channel.close();
            } finally {
                HELD_IN_THIS_JVM.remove(file, me);
            }
        }
    }
}
