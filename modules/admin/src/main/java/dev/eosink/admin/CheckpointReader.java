/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.WriterState;
import dev.eosink.core.protocol.WriterStateSerializer;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.DefaultOperatorStateBackend;
import org.apache.flink.runtime.state.DefaultOperatorStateBackendBuilder;
import org.apache.flink.runtime.state.OperatorStateHandle;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads what a retained checkpoint or a savepoint holds of eosink's sinks, from its {@code _metadata}
 * and the state files it names: each writer's state (Flink's {@code writer_raw_states} list state of
 * the sink's writer operator, each element eosink's {@link WriterStateSerializer} bytes wrapped by
 * {@link SimpleVersionedSerialization}) and each committer's committables ({@link CommitterStates}).
 *
 * <p>Operators are found by their state's name, not by their id, so a job's sink needs no known uid;
 * the sink id inside the writer state tells the sinks of one job apart. Another sink's writer state
 * (Kafka's, say) under the same name does not parse as eosink's and is passed over. Flink's own
 * operator state backend restores each operator's state, so every layout Flink writes (compression
 * included) reads as Flink would read it.
 */
final class CheckpointReader {

    static final String WRITER_STATE = "writer_raw_states";

    /**
     * What the checkpoint holds: its id, per sink id the sink's state, how many of its operators Flink recorded as
     * finished (with no state), and whether every committer state in it was read.
     */
    record Contents(
            Path metadata,
            long checkpointId,
            Map<String, SinkState> sinks,
            int finishedOperators,
            boolean committersRead) {

        /** The state of {@code sinkId}, or an error naming the sink ids this checkpoint holds. */
        SinkState sink(String sinkId) throws AdminException {
            SinkState state = sinks.get(sinkId);
            if (state == null) {
                throw new AdminException(
                        "checkpoint " + checkpointId + " (" + metadata + ") holds no state of sink id '"
                                + sinkId + "'; it holds "
                                + (sinks.isEmpty()
                                        ? "no eosink sink's state at all"
                                        : "the state of sink id(s) " + String.join(", ", sinks.keySet()))
                                + ". Remedy: give the sink id of the job that wrote this checkpoint, or the checkpoint of the "
                                + "job that ran sink id '" + sinkId + "'.");
            }
            return state;
        }

        /**
         * The state of {@code sinkId}; where the checkpoint holds none of it, but Flink recorded operators as
         * finished and every committer state was read (none holds a committable of it), the state of a sink whose
         * writers may have finished with nothing left to commit ({@link SinkState#writersFinished}, no
         * committables): the caller must not act on it without the database's word that nothing of the sink is
         * prepared. Otherwise the error of {@link #sink}.
         */
        SinkState sinkOrFinished(String sinkId) throws AdminException {
            if (!sinks.containsKey(sinkId) && finishedOperators > 0 && committersRead) {
                return new SinkState(sinkId, checkpointId, List.of(), List.of(), Optional.empty());
            }
            return sink(sinkId);
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Contents other
                            && metadata.equals(other.metadata)
                            && checkpointId == other.checkpointId
                            && sinks.equals(other.sinks)
                            && finishedOperators == other.finishedOperators
                            && committersRead == other.committersRead;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(metadata, checkpointId, sinks, finishedOperators, committersRead);
        }

        @Override
        public String toString() {
            return "Contents[checkpoint " + checkpointId + ", sinks " + sinks.keySet() + "]";
        }
    }

    private CheckpointReader() {}

    /** The {@code _metadata} file of a {@code chk-N} directory, a savepoint directory, or the file itself. */
    static Path metadataFile(String given) throws AdminException {
        Path path = Path.of(
                given.startsWith("file:") ? given.substring("file:".length()).replaceFirst("^//", "") : given);
        Path metadata = Files.isDirectory(path) ? path.resolve("_metadata") : path;
        if (!Files.isRegularFile(metadata) || !metadata.getFileName().toString().equals("_metadata")) {
            throw new AdminException("no checkpoint metadata at " + path + ": expected a retained checkpoint's chk-N "
                    + "directory, a savepoint directory, or the _metadata file in one"
                    + (Files.isDirectory(path)
                            ? " (this directory has no _metadata file: is it the job's checkpoint "
                                    + "directory rather than one of its chk-N directories, or a checkpoint that never completed?)"
                            : Files.exists(path) ? "" : " (it does not exist)")
                    + ". Remedy: pass the newest chk-N directory that holds a _metadata file.");
        }
        return metadata.toAbsolutePath();
    }

    static Contents read(String given) throws AdminException {
        Path metadata = metadataFile(given);
        ClassLoader loader = CheckpointReader.class.getClassLoader();
        CheckpointMetadata checkpoint = load(metadata, loader);
        Map<String, List<WriterState>> writers = new TreeMap<>();
        List<CommitterElement> committerElements = new ArrayList<>();
        for (OperatorState operator : checkpoint.getOperatorStates()) {
            readOperator(operator, loader, writers, committerElements);
        }
        Map<String, List<PreparedTransaction>> committables = new TreeMap<>();
        Map<String, String> committerNotes = new TreeMap<>();
        for (CommitterElement element : committerElements) {
            try {
                for (PreparedTransaction tx :
                        CommitterStates.committables(element.bytes, element.subtask, element.parallelism)) {
                    committables
                            .computeIfAbsent(tx.id().sinkId(), k -> new ArrayList<>())
                            .add(tx);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AdminException("interrupted while reading the committer state", e);
            } catch (IOException | RuntimeException e) {
                // Another sink's committer, or a layout of Flink this build does not read: the writer states decide.
                committerNotes.put(element.operator, e.toString());
            }
        }
        Map<String, SinkState> sinks = new TreeMap<>();
        for (Map.Entry<String, List<WriterState>> e : writers.entrySet()) {
            String sinkId = e.getKey();
            // Read when its committables are there, or when every committer state read and none is the
            // sink's (nothing left to commit); not when some committer state could not be read.
            Optional<String> note =
                    committables.containsKey(sinkId) || !committerElements.isEmpty() && committerNotes.isEmpty()
                            ? Optional.empty()
                            : Optional.of(
                                    committerElements.isEmpty()
                                            ? "the checkpoint holds no committer state of a Sink V2 sink"
                                            : "no committable of this sink read; committer states this tool cannot read: "
                                                    + committerNotes);
            sinks.put(
                    sinkId,
                    new SinkState(
                            sinkId,
                            checkpoint.getCheckpointId(),
                            e.getValue(),
                            committables.getOrDefault(sinkId, List.of()),
                            note));
        }
        // A sink whose writers had all finished (the end of a bounded input) left no writer state: Flink keeps none
        // of a finished operator. Its committer state, when read, still names it and holds what it promised.
        for (Map.Entry<String, List<PreparedTransaction>> e : committables.entrySet()) {
            if (!sinks.containsKey(e.getKey())) {
                sinks.put(
                        e.getKey(),
                        new SinkState(
                                e.getKey(), checkpoint.getCheckpointId(), List.of(), e.getValue(), Optional.empty()));
            }
        }
        int finished = (int) checkpoint.getOperatorStates().stream()
                .filter(OperatorState::isFullyFinished)
                .count();
        return new Contents(
                metadata,
                checkpoint.getCheckpointId(),
                sinks,
                finished,
                !committerElements.isEmpty() && committerNotes.isEmpty());
    }

    /** Flink's reading of {@code _metadata}; the state files it names are resolved against its directory. */
    private static CheckpointMetadata load(Path metadata, ClassLoader loader) throws AdminException {
        try (InputStream file = Files.newInputStream(metadata);
                DataInputStream in = new DataInputStream(new BufferedInputStream(file))) {
            return Checkpoints.loadCheckpointMetadata(
                    in, loader, metadata.getParent().toUri().toString());
        } catch (IOException | RuntimeException e) {
            throw new AdminException(
                    "could not read the checkpoint metadata " + metadata + ": " + e.getMessage()
                            + ". Remedy: check that it is a Flink checkpoint or savepoint, written by the Flink line this tool "
                            + "was built for",
                    e);
        }
    }

    /**
     * Every element of the operator list state {@code name}, of every operator and subtask that has
     * one, as Flink stored it: for reading another operator's position (a source's splits, say) from
     * the same checkpoint.
     */
    static List<byte[]> listState(String given, String name) throws AdminException {
        Path metadata = metadataFile(given);
        ClassLoader loader = CheckpointReader.class.getClassLoader();
        CheckpointMetadata checkpoint = load(metadata, loader);
        List<byte[]> elements = new ArrayList<>();
        for (OperatorState operator : checkpoint.getOperatorStates()) {
            for (OperatorSubtaskState subtask : operator.getSubtaskStates().values()) {
                Collection<OperatorStateHandle> handles = subtask.getManagedOperatorState();
                if (holds(handles, name)) {
                    restore(handles, loader, operator, name, elements, null, new ArrayList<>());
                }
            }
        }
        return elements;
    }

    /** One element of a committer's state, with what reading it needs. */
    private static final class CommitterElement {
        final String operator;
        final int subtask;
        final int parallelism;
        final byte[] bytes;

        CommitterElement(String operator, int subtask, int parallelism, byte[] bytes) {
            this.operator = operator;
            this.subtask = subtask;
            this.parallelism = parallelism;
            this.bytes = bytes;
        }
    }

    private static void readOperator(
            OperatorState operator,
            ClassLoader loader,
            Map<String, List<WriterState>> writers,
            List<CommitterElement> committerElements)
            throws AdminException {
        WriterStateSerializer writerSerializer = new WriterStateSerializer();
        for (Map.Entry<Integer, OperatorSubtaskState> subtask :
                operator.getSubtaskStates().entrySet()) {
            Collection<OperatorStateHandle> handles = subtask.getValue().getManagedOperatorState();
            boolean writer = holds(handles, WRITER_STATE);
            boolean committer = holds(handles, CommitterStates.STATE_NAME);
            if (!writer && !committer) {
                continue;
            }
            List<byte[]> writerElements = new ArrayList<>();
            List<byte[]> committerBytes = new ArrayList<>();
            restore(
                    handles,
                    loader,
                    operator,
                    writer ? WRITER_STATE : null,
                    writerElements,
                    committer ? CommitterStates.STATE_NAME : null,
                    committerBytes);
            List<WriterState> states = new ArrayList<>();
            try {
                for (byte[] element : writerElements) {
                    states.add(SimpleVersionedSerialization.readVersionAndDeSerialize(writerSerializer, element));
                }
            } catch (IOException | RuntimeException notOurs) {
                // Another sink's writer state under Flink's common name: not eosink's, not ours to judge.
                states.clear();
            }
            for (WriterState s : states) {
                writers.computeIfAbsent(s.sinkId(), k -> new ArrayList<>()).add(s);
            }
            for (byte[] element : committerBytes) {
                committerElements.add(new CommitterElement(
                        operator.getOperatorID().toString(), subtask.getKey(), operator.getParallelism(), element));
            }
        }
    }

    private static boolean holds(Collection<OperatorStateHandle> handles, String name) {
        return handles.stream().anyMatch(h -> h.getStateNameToPartitionOffsets().containsKey(name));
    }

    /** Restores one subtask's operator state with Flink's own backend and copies the two lists out. */
    private static void restore(
            Collection<OperatorStateHandle> handles,
            ClassLoader loader,
            OperatorState operator,
            String firstName,
            List<byte[]> first,
            String secondName,
            List<byte[]> second)
            throws AdminException {
        CloseableRegistry registry = new CloseableRegistry();
        DefaultOperatorStateBackend backend = null;
        try {
            backend = new DefaultOperatorStateBackendBuilder(loader, new ExecutionConfig(), false, handles, registry)
                    .build();
            copy(backend, firstName, first);
            copy(backend, secondName, second);
        } catch (Exception e) {
            throw new AdminException(
                    "could not read the operator state of operator " + operator.getOperatorID()
                            + " from the checkpoint: " + e.getMessage()
                            + ". Remedy: check that every file of the checkpoint "
                            + "directory is there and readable",
                    e);
        } finally {
            if (backend != null) {
                backend.dispose();
            }
            try {
                registry.close();
            } catch (IOException ignored) {
                // Nothing was opened that outlives the restore.
            }
        }
    }

    private static void copy(DefaultOperatorStateBackend backend, String name, List<byte[]> into) throws Exception {
        if (name == null) {
            return;
        }
        ListState<byte[]> state =
                backend.getListState(new ListStateDescriptor<>(name, BytePrimitiveArraySerializer.INSTANCE));
        Iterable<byte[]> elements = state.get();
        if (elements != null) {
            elements.forEach(into::add);
        }
    }
}
