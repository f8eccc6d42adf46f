/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.Committed;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One writer subtask's session on a file sink's directory. An epoch is a file of {@code in-progress/},
 * created at its first record under the name the epoch will prepare as, one line per record.
 *
 * <ul>
 *   <li>{@link #prepare}: flushes the file and forces it to the disk ({@link FileChannel#force}), dates it
 *       by the epoch's start (what {@link #committedAfter} reads), and moves it into {@code pending/}
 *       atomically; from then on it survives a crash of the task, the JVM or the machine.
 *   <li>{@link #abortOpen}: deletes the open epoch's file. A file a dead attempt left in {@code in-progress/}
 *       is deleted when a session next claims that subtask index: the guard proves nobody writes it.
 *   <li>{@link #listPrepared} and {@link #rollbackPrepared}: the sink's files in {@code pending/}, and
 *       their deletion.
 * </ul>
 *
 * <p>The session plays both its roles itself ({@link Recovery}, {@link EpochWriter}), and carries no writes
 * past a barrier: appending to a file locks nothing the next epoch writes.
 *
 * <p>Called by the writer's task thread only. Records are buffered in memory up to 64 KiB: what a crash
 * loses of an open epoch is replayed from the checkpoint, as with a database's open transaction.
 */
final class FileWriterSession<IN> implements WriterSession<IN>, Recovery, EpochWriter<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(FileWriterSession.class);

    private final SubtaskContext context;
    private final SinkDirectory directory;
    private final LineFormat<IN> format;
    private final OwnershipLocks locks;

    private TransactionId openId;
    private FileChannel channel;
    private Writer writer;
    private long epochStartMillis;

    FileWriterSession(SubtaskContext context, SinkDirectory directory, LineFormat<IN> format) {
        this.context = context;
        this.directory = directory;
        this.format = format;
        this.locks = new OwnershipLocks(directory, context);
    }

    /** Takes the guard, then deletes what dead attempts of that subtask index left in {@code in-progress/}. */
    @Override
    public Recovery recovery() {
        return this;
    }

    @Override
    public EpochWriter<IN> epoch() {
        return this;
    }

    @Override
    public Optional<CarriedWrites> carriedWrites() {
        return Optional.empty();
    }

    @Override
    public void claim(int subtask, long waitMillis) throws IOException {
        locks.claim(subtask, waitMillis);
        for (TransactionId stale : directory.list(SinkDirectory.IN_PROGRESS, context.sinkId())) {
            if (stale.subtask() == subtask && !stale.equals(openId)) {
                LOG.info(
                        "{}: deleting {}, the open epoch of an attempt that is gone",
                        context,
                        directory.inProgress(stale));
                Durably.delete(directory.inProgress(stale));
            }
        }
    }

    @Override
    public void release(int subtask) throws IOException {
        locks.release(subtask);
    }

    @Override
    public List<TransactionId> listPrepared() throws IOException {
        return directory.list(SinkDirectory.PENDING, context.sinkId());
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws IOException {
        try {
            if (!Durably.delete(directory.pending(id))) {
                LOG.info("{}: {} was already gone when rolling it back", context, id);
            }
        } catch (IOException e) {
            throw new SinkException(
                    context + ": could not roll back prepared transaction " + id + " (checkpoint "
                            + id.checkpointId() + ", subtask " + id.subtask() + ") in directory " + directory
                            + ": could not "
                            + "delete " + directory.pending(id) + ": " + e.getMessage()
                            + ". Remedy: let the sink delete files "
                            + "there; the restarted job rolls it back again",
                    e);
        }
    }

    /**
     * The committed files of this sink whose epoch began after {@code sinceEpochMillis}, named after {@code
     * checkpointId} or by another execution than {@code takenBy}: each file carries its epoch's start as its
     * modification time (set at prepare, kept by both renames), and its lines are its rows.
     */
    @Override
    public Optional<Committed> committedAfter(long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws IOException {
        long transactions = 0;
        long rows = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (TransactionId id : directory.list(SinkDirectory.COMMITTED, context.sinkId())) {
            Path file = directory.committed(id);
            boolean later = id.checkpointId() > checkpointId
                    || takenBy.isPresent() && !takenBy.get().equals(id.executionTag());
            if (later && Files.getLastModifiedTime(file).toMillis() > sinceEpochMillis) {
                transactions++;
                rows += lines(file);
                first = Math.min(first, id.checkpointId());
                last = Math.max(last, id.checkpointId());
            }
        }
        return transactions == 0 ? Optional.empty() : Optional.of(new Committed(transactions, rows, first, last));
    }

    private static long lines(Path file) throws IOException {
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.count();
        }
    }

    /** Creates the epoch's file; the name is the one {@link #prepare} will receive. */
    @Override
    public void begin(TransactionId id) throws IOException {
        if (openId != null) {
            throw new IllegalStateException(context + ": " + id + " begins while " + openId + " is open");
        }
        Path file = directory.inProgress(id);
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new SinkException(
                    context + ": could not create " + file + " for the epoch of " + id + " (checkpoint "
                            + id.checkpointId() + "): " + e.getMessage() + ". Remedy: let the sink create files in "
                            + file.getParent(),
                    e);
        }
        writer = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8), 64 * 1024);
        openId = id;
        epochStartMillis = System.currentTimeMillis();
    }

    @Override
    public void write(IN record, long positionInEpoch) throws IOException {
        if (openId == null) {
            throw new IllegalStateException(context + ": write without begin");
        }
        String line = format.line(record);
        if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
            throw new SinkException(context + ", directory " + directory + ": record " + positionInEpoch
                    + " of the epoch "
                    + "of checkpoint " + openId.checkpointId() + " (" + openId + ") is a line with a line break, which "
                    + "would read back as two records. Remedy: make the line format escape or drop line breaks");
        }
        writer.write(line);
        writer.write('\n');
    }

    @Override
    public void flush() throws IOException {
        if (writer != null) {
            writer.flush();
        }
    }

    /**
     * Makes the epoch's file durable under {@code pending/}: flush, fsync, date it by the epoch's start,
     * close, move atomically (the directories flushed). A crash before the move leaves it in {@code
     * in-progress/}, where the next claim of this subtask index deletes it.
     */
    @Override
    public void prepare(TransactionId id, long rows) throws IOException {
        if (!id.equals(openId)) {
            throw new IllegalStateException(context + ": prepares " + id + " but " + openId + " is open");
        }
        Path file = directory.inProgress(id);
        try {
            writer.flush();
            channel.force(true);
            writer.close(); // closes the channel
            writer = null;
            channel = null;
            Files.setLastModifiedTime(file, FileTime.fromMillis(epochStartMillis));
            Durably.move(file, directory.pending(id));
        } catch (IOException e) {
            throw new SinkException(
                    context + ": could not prepare " + id + " (checkpoint " + id.checkpointId() + ", "
                            + rows + " rows) in directory " + directory + ": " + e.getMessage()
                            + ". The epoch is replayed from "
                            + "the last checkpoint. Remedy: check the disk (space, permissions)",
                    e);
        }
        openId = null;
    }

    @Override
    public void abortOpen() throws IOException {
        if (openId == null) {
            return;
        }
        TransactionId id = openId;
        openId = null;
        try {
            if (writer != null) {
                writer.close();
            }
        } catch (IOException closeFailed) {
            // what it failed to write is deleted below
        } finally {
            writer = null;
            channel = null;
        }
        Durably.delete(directory.inProgress(id));
    }

    @Override
    public void close() throws IOException {
        try {
            abortOpen();
        } finally {
            locks.close();
        }
    }
}
