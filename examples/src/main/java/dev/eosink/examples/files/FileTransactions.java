/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A directory as the core's transactional resource ({@link TransactionalDatabase}): each epoch of each
 * writer subtask is a file, prepared by a durable move into {@code pending/}, committed by one into
 * {@code committed/} (see {@link SinkDirectory} for the layout). Serializable configuration: the
 * directory and the line format; the sessions do the work on the task managers, which must all see the
 * directory (a local path on a single machine, a shared file system with working locks otherwise).
 *
 * @param <IN> the records the sink writes
 */
final class FileTransactions<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;

    /** A String, not a Path: Path is not serializable. */
    private final String directory;

    private final LineFormat<IN> format;

    FileTransactions(Path directory, LineFormat<IN> format) {
        this.directory = directory.toAbsolutePath().normalize().toString();
        this.format = Objects.requireNonNull(format, "format");
    }

    /** Creates the directories (a start-up check: a directory the sink cannot write fails the job now). */
    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        SinkDirectory dir = new SinkDirectory(Path.of(directory));
        dir.create();
        return new FileWriterSession<>(context, dir, format);
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        SinkDirectory dir = new SinkDirectory(Path.of(directory));
        dir.create();
        return new FileCommitSession(context, dir);
    }

    @Override
    public String target() {
        return "directory " + directory;
    }

    /**
     * The marker is the committed file itself. A prepared transaction is a file of {@code pending/}: a
     * move commits it, a delete rolls it back, and it blocks nothing while it waits.
     */
    @Override
    public Wording wording() {
        return new Wording(
                "its committed file is absent",
                "the files named after them in " + Path.of(directory, SinkDirectory.PENDING) + ": move one into "
                        + SinkDirectory.COMMITTED + "/ to commit it, delete it to roll it back",
                "its pending file, which blocks no other write");
    }

    @Override
    public String toString() {
        return "FileTransactions{" + directory + "}";
    }
}
