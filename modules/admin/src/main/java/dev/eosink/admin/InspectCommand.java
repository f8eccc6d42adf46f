/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.WriterState;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/** {@code inspect}: what a retained checkpoint or savepoint holds of each sink, and what it promised. */
final class InspectCommand {

    private final Admin.Arguments args;
    private final PrintStream out;

    InspectCommand(Admin.Arguments args, PrintStream out) {
        this.args = args;
        this.out = out;
    }

    int run() throws AdminException {
        CheckpointReader.Contents contents = CheckpointReader.read(args.path());
        out.println("checkpoint " + contents.checkpointId() + " (" + contents.metadata() + ")");
        Collection<SinkState> sinks = args.sinkId().isPresent()
                ? List.of(contents.sink(args.sinkId().get()))
                : contents.sinks().values();
        if (sinks.isEmpty()) {
            out.println("no eosink sink's state in this checkpoint"
                    + (contents.finishedOperators() > 0
                            ? " (" + contents.finishedOperators() + " operator(s) recorded finished: a sink whose "
                                    + "writers finished and whose committers committed everything leaves none)"
                            : ""));
        }
        for (SinkState sink : sinks) {
            print(sink, out);
        }
        return 0;
    }

    static void print(SinkState sink, PrintStream out) {
        if (sink.writersFinished()) {
            out.println("sink id " + sink.sinkId() + ": no writer state: its writers had finished before checkpoint "
                    + sink.checkpointId() + " (the end of a bounded input)");
            sink.committables().forEach(c -> out.println("  committable: " + c.id() + " (" + c.rows() + " rows)"));
            out.println("  promised: the committables above, and nothing else (a job restored from this checkpoint "
                    + "runs no writer; its committers commit them)");
            return;
        }
        out.println("sink id " + sink.sinkId() + ": " + sink.writerStates().size() + " writer state(s)"
                + sink.parallelism().stream()
                        .mapToObj(p -> ", parallelism " + p)
                        .findFirst()
                        .orElse(""));
        for (WriterState s : sink.writerStates()) {
            List<PreparedTransaction> own = sink.committables().stream()
                    .filter(c -> c.id().subtask() == s.subtask())
                    .collect(Collectors.toList());
            out.println("  subtask " + s.subtask() + ": run " + s.run().orElse("(none: state of the first layout)")
                    + ", writer state of checkpoint " + s.checkpointId()
                    + (s.snapshotAtMillis().isPresent()
                            ? ", snapshot at "
                                    + Text.time(Instant.ofEpochMilli(
                                            s.snapshotAtMillis().getAsLong()))
                            : "")
                    + (s.carries() ? ", " + s.carried().length + " bytes of carried statements" : ""));
            out.println("    committables: "
                    + (own.isEmpty()
                            ? "none"
                            : own.stream()
                                    .map(c -> c.id() + " (" + c.rows() + " rows)")
                                    .collect(Collectors.joining(", "))));
        }
        sink.committables().stream()
                .filter(c -> sink.writerStates().stream().noneMatch(s -> s.subtask() == c.id().subtask()))
                .forEach(c -> out.println("  committable of a subtask without writer state: " + c.id()));
        sink.committerNote().ifPresent(note -> out.println("  committer state: " + note));
        if (sink.withLineage()) {
            out.println(
                    "  promised: a prepared transaction of sink id " + sink.sinkId() + " whose subtask's writer state "
                            + "above names its run, named at or before checkpoint " + sink.checkpointId()
                            + " (a job restored from this checkpoint commits it); every other one is not (it would roll it back)");
        } else {
            out.println(
                    "  promised: "
                            + (sink.decidable()
                                    ? "the committables above (the writer states carry no run token)"
                                    : "cannot tell: the writer states carry no run token and the committer state was not read"));
        }
        List<?> odd = sink.committablesNotPromised();
        if (!odd.isEmpty()) {
            out.println("  WARNING: committables the writer states do not promise: " + odd);
        }
    }
}
