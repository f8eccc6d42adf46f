package dev.eosink.examples.files;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

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
 */
final class OwnershipLocks implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OwnershipLocks.class);

    /** Lock file -> who holds it in this JVM (or is taking it right now). */
    private static final Map<Path, String> HELD_IN_THIS_JVM = new ConcurrentHashMap<>();

    /** Numbers the sessions of this JVM, so that two of one subtask (a restart) never pass for each other. */
    private static final AtomicLong SESSIONS = new AtomicLong();

    private final SinkDirectory directory;
    private final SubtaskContext context;
    private final String me;
    private final Map<Integer, Held> held = new HashMap<>();

    OwnershipLocks(SinkDirectory directory, SubtaskContext context) {
        this.directory = directory;
        this.context = context;
        this.me = context + " of job " + context.jobId() + ", process " + ManagementFactory.getRuntimeMXBean().getName()
                + ", session " + SESSIONS.incrementAndGet();
    }

    /** How many guards of {@code sinkId} in {@code base} sessions of this JVM hold: for tests and tools. */
    static long heldInThisJvm(Path base, String sinkId) {
        Path locks = new SinkDirectory(base).lock(sinkId, 0).getParent();
        return HELD_IN_THIS_JVM.keySet().stream()
                .filter(p -> p.getParent().equals(locks) && p.getFileName().toString().startsWith(sinkId + "+"))
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
            String holder = tryLock(subtask, file);
            if (holder == null) {
                return;
            }
            long now = System.currentTimeMillis();
            if (now >= nextLog && now < deadline) {
                // A task going away releases it within seconds; a live job holding it is a second job.
                LOG.info("{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} ({})",
                        context, deadline - now, context.sinkId(), subtask, holder);
                nextLog = now + 5_000;
            }
            if (now >= deadline) {
                throw new SinkException(context + ": another live session holds the ownership guard of sink id '"
                        + context.sinkId() + "' subtask " + subtask + " (" + holder + ") and did not release it within "
                        + waitMillis + " ms. Two jobs with the same sink id would roll back each other's transactions, "
                        + "so this one refuses to start. Remedy: stop the other job, or give this sink a different sink id.");
            }
            try {
                Thread.sleep(Math.min(100, Math.max(1, deadline - now)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SinkException(context + ": interrupted while waiting for the ownership guard", e);
            }
        }
    }

    /** Null once this session holds the lock; else who holds it, for messages. */
    private String tryLock(int subtask, Path file) throws SinkException {
        String other = HELD_IN_THIS_JVM.putIfAbsent(file, me);
        if (other != null) {
            return "lock file " + file + ", held by " + other;
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldByAnotherClassLoader) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                HELD_IN_THIS_JVM.remove(file, me);
                return "lock file " + file + ", held by " + holderWritten(file);
            }
            // Who holds it, for the message of a session that waits for it in another process.
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((me + "\n").getBytes(StandardCharsets.UTF_8)), 0);
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
            throw new SinkException(context + ": could not take the ownership guard of subtask " + subtask
                    + " (lock file " + file + "): " + e.getMessage() + ". Remedy: the sink needs to create and lock "
                    + "files in " + file.getParent(), e);
        }
    }

    /** What the holder wrote into the lock file; only called when no session of this JVM holds it. */
    private static String holderWritten(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? "another process" : text;
        } catch (IOException e) {
            return "another process (" + e.getMessage() + ")";
        }
    }

    /** Releases the guard of an adopted {@code subtask}; the own subtask's goes when the session closes. */
    void release(int subtask) throws SinkException {
        Held h = held.remove(subtask);
        if (h != null) {
            try {
                h.release();
            } catch (IOException e) {
                throw new SinkException(context + ": could not release the guard of subtask " + subtask
                        + " (lock file " + h.file + ")", e);
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
