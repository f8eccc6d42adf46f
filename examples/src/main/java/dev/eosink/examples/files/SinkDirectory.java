/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.TransactionId;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The layout of a file sink's base directory, and the one place that turns a {@link TransactionId} into
 * a file name and back:
 *
 * <pre>
 * base/in-progress/  the open epoch of each writer, written as records come
 * base/pending/      prepared transactions: complete, durable, not yet visible
 * base/committed/    committed transactions: what readers read; each file is its transaction's marker
 * base/locks/        one lock file per sink id and subtask index: the writers' ownership guard
 * </pre>
 *
 * <p>A file is named after its transaction, {@code eos1+orders+0+5+x4ndz0ah.txt} for {@code
 * eos1/orders/0/5/x4ndz0ah}: a sink id never holds '+' (nor '/'), so the name parses back, and the
 * same name is used in every directory, so that a move is all a prepare or a commit does. Several sinks
 * may share a base directory: every listing is filtered by sink id.
 */
final class SinkDirectory {

    static final String IN_PROGRESS = "in-progress";
    static final String PENDING = "pending";
    static final String COMMITTED = "committed";
    static final String LOCKS = "locks";

    private static final String SUFFIX = ".txt";

    private final Path base;

    SinkDirectory(Path base) {
        this.base = base.toAbsolutePath().normalize();
    }

    /** Creates the four directories if missing. */
    void create() throws IOException {
        for (String dir : List.of(IN_PROGRESS, PENDING, COMMITTED, LOCKS)) {
            Files.createDirectories(base.resolve(dir));
        }
    }

    Path base() {
        return base;
    }

    Path inProgress(TransactionId id) {
        return base.resolve(IN_PROGRESS).resolve(fileName(id));
    }

    Path pending(TransactionId id) {
        return base.resolve(PENDING).resolve(fileName(id));
    }

    Path committed(TransactionId id) {
        return base.resolve(COMMITTED).resolve(fileName(id));
    }

    /** The lock file of the ownership guard of {@code subtask} of sink {@code sinkId}. */
    Path lock(String sinkId, int subtask) {
        return base.resolve(LOCKS).resolve(TransactionId.checkSinkId(sinkId) + "+" + subtask + ".lock");
    }

    /** The transactions of {@code sinkId} with a file in {@code dir} ({@link #PENDING}, ...), in name order. */
    List<TransactionId> list(String dir, String sinkId) throws IOException {
        try (Stream<Path> files = Files.list(base.resolve(dir))) {
            return files.map(f -> parse(f.getFileName().toString()))
                    .flatMap(Optional::stream)
                    .filter(id -> id.sinkId().equals(sinkId))
                    .sorted((a, b) -> a.toString().compareTo(b.toString()))
                    .collect(Collectors.toList());
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    static String fileName(TransactionId id) {
        return id.toString().replace('/', '+') + SUFFIX;
    }

    /** The transaction a file is named after; empty for any other file (a reader's, an editor's backup). */
    static Optional<TransactionId> parse(String fileName) {
        if (!fileName.endsWith(SUFFIX)) {
            return Optional.empty();
        }
        return TransactionId.parse(
                fileName.substring(0, fileName.length() - SUFFIX.length()).replace('+', '/'));
    }

    @Override
    public String toString() {
        return base.toString();
    }
}
