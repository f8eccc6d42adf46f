/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.hardcases.ResourceBackend;
import dev.eosink.testing.hardcases.SinkSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * The file sink for the resource-neutral hard cases: each target is a directory of its own under
 * {@code root}, the sink writes each id as a line, and what the target holds is the lines of its
 * {@code committed/} files. Prepared transactions are the files of {@code pending/}; a transaction's
 * marker is its committed file. Read directly from the files, never through the sink's sessions.
 */
final class FileBackend implements ResourceBackend {

    private final Path root;

    FileBackend(Path root) {
        this.root = root;
    }

    @Override
    public String name() {
        return "files";
    }

    @Override
    public ExactlyOnceSink<Long> sink(SinkSpec spec) {
        SinkSettings settings = SinkSettings.defaults(spec.sinkId())
                .withClaimWait(spec.claimWait())
                .withCommitRetries(SinkSettings.DEFAULT_COMMIT_RETRIES, spec.commitRetryBackoff());
        if (spec.leftoverPolicy().isPresent()) {
            settings = settings.withLeftoverPolicy(spec.leftoverPolicy().get());
        }
        if (spec.rewindPolicy().isPresent()) {
            settings = settings.withRewindPolicy(spec.rewindPolicy().get());
        }
        if (spec.maxPreparedPerSubtask().isPresent()) {
            settings = settings.withMaxPreparedPerSubtask(
                    spec.maxPreparedPerSubtask().getAsInt());
        }
        if (spec.markerRetention().isPresent()) {
            settings = settings.withMarkerRetention(
                    spec.markerRetention().get(), spec.markerPruneInterval().orElseThrow());
        }
        return FileSink.create(root.resolve(spec.table()), id -> Long.toString(id), settings);
    }

    @Override
    public void createTarget(String target) {
        try {
            new SinkDirectory(root.resolve(target)).create();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void dropTarget(String target) {
        try (Stream<Path> files = Files.walk(root.resolve(target))) {
            for (Path p : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<TransactionId> prepared(String sinkId) {
        List<TransactionId> prepared = new ArrayList<>();
        for (SinkDirectory dir : targets()) {
            prepared.addAll(list(dir, SinkDirectory.PENDING, sinkId));
        }
        return prepared;
    }

    /** A pending file of ids {@code from..to-1}, one a line, made durable as the sink makes its own. */
    @Override
    public void stagePrepared(String target, TransactionId id, long from, long to) throws IOException {
        SinkDirectory dir = new SinkDirectory(root.resolve(target));
        Path file = dir.inProgress(id);
        Files.write(
                file,
                LongStream.range(from, to).mapToObj(Long::toString).collect(Collectors.toList()),
                StandardCharsets.UTF_8);
        Durably.move(file, dir.pending(id));
    }

    @Override
    public void commitPrepared(TransactionId id) throws IOException {
        SinkDirectory dir = holding(id);
        Durably.move(dir.pending(id), dir.committed(id));
    }

    @Override
    public void rollbackPrepared(TransactionId id) throws IOException {
        Files.delete(holding(id).pending(id));
    }

    /** The target that holds a pending file of {@code id}. */
    private SinkDirectory holding(TransactionId id) throws NoSuchFileException {
        return targets().stream()
                .filter(dir -> Files.exists(dir.pending(id)))
                .findFirst()
                .orElseThrow(() -> new NoSuchFileException("no pending file of " + id + " under " + root));
    }

    @Override
    public Map<Long, Long> idCounts(String target) {
        SinkDirectory dir = new SinkDirectory(root.resolve(target));
        Map<Long, Long> counts = new HashMap<>();
        try (Stream<Path> files = Files.list(dir.base().resolve(SinkDirectory.COMMITTED))) {
            for (Path file : files.collect(Collectors.toList())) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    counts.merge(Long.parseLong(line), 1L, Long::sum);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return counts;
    }

    @Override
    public Map<TransactionId, Long> committed(String sinkId) {
        Map<TransactionId, Long> committed = new HashMap<>();
        for (SinkDirectory dir : targets()) {
            for (TransactionId id : list(dir, SinkDirectory.COMMITTED, sinkId)) {
                try {
                    committed.put(id, (long) Files.readAllLines(dir.committed(id), StandardCharsets.UTF_8)
                            .size());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return committed;
    }

    /** The guards its writers hold: a file sink has no other session that holds anything. */
    @Override
    public long openSessions(String sinkId) {
        return targets().stream()
                .mapToLong(dir -> OwnershipLocks.heldInThisJvm(dir.base(), sinkId))
                .sum();
    }

    @Override
    public String guardHolder(String sinkId, int subtask) {
        return Path.of(SinkDirectory.LOCKS, sinkId + "+" + subtask + ".lock").toString();
    }

    private List<SinkDirectory> targets() {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(Files::isDirectory).map(SinkDirectory::new).collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<TransactionId> list(SinkDirectory dir, String which, String sinkId) {
        try {
            return dir.list(which, sinkId);
        } catch (NoSuchFileException dropped) {
            return List.of(); // a target dropped meanwhile
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
