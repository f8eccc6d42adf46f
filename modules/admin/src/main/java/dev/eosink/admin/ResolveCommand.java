/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.PreparedTransaction;
import dev.eosink.core.protocol.WriterState;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * {@code resolve}: finishes a dead job's prepared transactions as a job restored from the given
 * checkpoint would: commits each one the checkpoint promised ({@link SinkState#promises}), rolls back
 * every other prepared transaction of the sink id, and proves each commit by its marker row. A dry run
 * unless {@code --apply}; refuses while a live job holds the sink's ownership guard.
 */
final class ResolveCommand {

    private final Admin.Arguments args;
    private final Map<String, String> env;
    private final PrintStream out;

    ResolveCommand(Admin.Arguments args, Map<String, String> env, PrintStream out) {
        this.args = args;
        this.env = env;
        this.out = out;
    }

    /** What resolve does with one prepared transaction, and why. */
    private static final class Step {
        final AdminDatabase.Prepared tx;
        final boolean commit;
        final String why;

        Step(AdminDatabase.Prepared tx, boolean commit, String why) {
            this.tx = tx;
            this.commit = commit;
            this.why = why;
        }

        boolean commit() {
            return commit;
        }
    }

    int run() throws AdminException {
        CheckpointReader.Contents contents = CheckpointReader.read(args.path());
        SinkState sink = contents.sinkOrFinished(sinkId(contents));
        String sinkId = sink.sinkId();
        if (!sink.decidable()) {
            throw new AdminException(
                    "checkpoint " + contents.checkpointId() + " cannot tell what it promised of sink id '"
                            + sinkId
                            + "': its writer states carry no run token (eosink's first state layout), and its committer "
                            + "state could not be read (" + sink.committerNote().orElse("")
                            + "). Remedy: restore the job from "
                            + "it once (it commits what it promised and rolls back the rest), or resolve by hand (docs/admin.md)");
        }
        try (AdminDatabase db = args.connect(env)) {
            out.println("checkpoint " + contents.checkpointId() + " (" + contents.metadata() + "), sink id " + sinkId);
            out.println("database: " + db.describe());
            db.markers(Optional.of(sinkId)); // fails with the remedy when the marker table is missing
            List<AdminDatabase.Prepared> prepared = db.prepared(Optional.of(sinkId));
            if (sink.writersFinished() && sink.committables().isEmpty()) {
                // The checkpoint does not name the sink: it may be the sink's after its writers finished and its
                // committers committed, or another job's. Only "nothing of the sink prepared" is safe to accept.
                if (!prepared.isEmpty()) {
                    throw new AdminException("checkpoint " + contents.checkpointId() + " (" + contents.metadata()
                            + ") holds no state of sink id '" + sinkId + "': " + contents.finishedOperators()
                            + " of its operators are recorded finished and its committer states hold no committable "
                            + "of the sink, so if those were this sink's writers, it promised nothing still prepared; "
                            + "yet the database holds " + prepared.size() + " prepared transaction(s) of it ("
                            + prepared.stream().map(p -> p.id().toString()).collect(Collectors.joining(", "))
                            + "), which this checkpoint cannot tell about. Nothing changed. Remedy: resolve against a "
                            + "retained checkpoint or savepoint of the job that prepared them, taken before its writers "
                            + "finished; or, once sure that no snapshot promised them, roll them back by hand "
                            + "(docs/admin.md)");
                }
                out.println("checkpoint " + contents.checkpointId() + " holds no state of sink id " + sinkId + ", but "
                        + contents.finishedOperators() + " of its operators are recorded finished (a job whose input "
                        + "ended keeps no state of its finished writers) and its committer states hold nothing of it; "
                        + "no prepared transaction of sink id " + sinkId + ": nothing to do");
                return 0;
            }
            List<String> holders = db.guardHoldersUpTo(
                    sinkId,
                    IntStream.concat(
                            prepared.stream().mapToInt(p -> p.id().subtask()),
                            sink.writerStates().stream().mapToInt(WriterState::subtask)));
            if (!holders.isEmpty()) {
                throw new AdminException(
                        AdminException.REFUSED,
                        "refused: a live job holds the ownership guard of sink id '"
                                + sinkId + "' (" + String.join("; ", holders)
                                + "). That job owns its prepared transactions and "
                                + "finishes them itself; finishing them here could commit what it is about to roll back, or the "
                                + "reverse. Remedy: stop the job first (cancel it; a job restored later from a checkpoint resolves "
                                + "its transactions itself), then run resolve again");
            }
            out.println("ownership guard: free (no live job with sink id " + sinkId + ")");
            if (sink.writersFinished()) {
                out.println("the sink's writers had finished before checkpoint " + sink.checkpointId()
                        + " (the end of a bounded input): its committables are all it promised. No writer state tells "
                        + "when it was taken, so whether a later snapshot exists goes unchecked: resolve against the "
                        + "newest retained checkpoint or savepoint");
            }
            OptionalLong takenAt = WriterState.takenAt(sink.writerStates());
            if (takenAt.isPresent() && !args.allowOlder) {
                Optional<String> later = db.committedAfter(
                        sinkId, sink.checkpointId(), takenAt.getAsLong(), WriterState.takenBy(sink.writerStates()));
                if (later.isPresent()) {
                    throw new AdminException(
                            "checkpoint " + sink.checkpointId() + " is not the job's last: the database "
                                    + "holds " + later.get() + " of sink id '" + sinkId
                                    + "', committed after this checkpoint was "
                                    + "taken, so a later checkpoint completed, or another run of the sink id wrote. Resolving "
                                    + "against this one would roll back what the later one promised. Remedy: resolve with the newest retained checkpoint (the newest chk-N "
                                    + "with a _metadata file, or a later savepoint); --allow-older-checkpoint if this one is "
                                    + "deliberate (the sources will be rewound to it)");
                }
            }

            List<Step> steps = new ArrayList<>();
            for (AdminDatabase.Prepared tx : prepared) {
                steps.add(new Step(tx, sink.promises(tx.id()), sink.why(tx.id())));
            }
            Set<TransactionId> stillPrepared =
                    prepared.stream().map(AdminDatabase.Prepared::id).collect(Collectors.toSet());
            List<String> lost = new ArrayList<>();
            List<String> done = new ArrayList<>();
            for (PreparedTransaction committable : sink.committables()) {
                if (stillPrepared.contains(committable.id())) {
                    continue;
                }
                OptionalLong marker = db.marker(committable.id());
                if (marker.isPresent()) {
                    done.add(committable.id() + " (" + marker.getAsLong() + " rows)");
                } else {
                    lost.add(committable.id().toString());
                }
            }
            if (steps.isEmpty()) {
                out.println("no prepared transaction of sink id " + sinkId + ": nothing to do");
            }
            for (Step s : steps) {
                out.println((s.commit ? "COMMIT   " : "ROLLBACK ") + s.tx.id() + "  " + s.why);
            }
            for (String d : done) {
                out.println("already committed (marker row found): " + d);
            }
            for (String l : lost) {
                out.println(
                        "LOST: " + l + " is a committable of this checkpoint, yet neither prepared nor marked: either "
                                + "rolled back by someone (its rows are not in the table), or committed and its marker row "
                                + "deleted since, by hand or pruned after markerRetention (its rows are in the table). To tell "
                                + "which, and the remedy of each: docs/operations.md, \"A transaction reported LOST\"");
            }
            long after = steps.stream()
                    .filter(s -> !s.commit && s.tx.id().checkpointId() > sink.checkpointId())
                    .count();
            if (after > 0) {
                out.println("NOTE: " + after + " transaction(s) above are named after checkpoint " + sink.checkpointId()
                        + ", which does not promise them. If a savepoint or a retained checkpoint was taken after it (a "
                        + "plain savepoint does not notify the sink, so its transactions stay prepared), resolve against "
                        + "the newest of those instead: resolving against checkpoint " + sink.checkpointId() + " rolls "
                        + "them back, and a job restored from that later snapshot would then report them LOST");
            }
            for (TransactionId odd : sink.committablesNotPromised()) {
                out.println(
                        "WARNING: committable " + odd + " is not promised by the writer states; it is not committed");
            }
            if (!args.apply) {
                long commits = steps.stream().filter(Step::commit).count();
                out.println("dry run: would commit " + commits + " and roll back " + (steps.size() - commits)
                        + " prepared transaction(s); nothing changed. Run again with --apply to do it.");
                carried(db, sink);
                return lost.isEmpty() ? 0 : AdminException.FAILED;
            }
            int exit = apply(db, sinkId, steps, lost);
            carried(db, sink);
            return exit;
        }
    }

    /**
     * Writes an upsert writer carried past the barrier of this checkpoint live in its writer state only, and follow
     * the commits above: a job restored from it with the sink's state writes them; otherwise {@code carried} must.
     */
    private void carried(AdminDatabase db, SinkState sink) throws AdminException {
        List<Integer> carrying = sink.writerStates().stream()
                .filter(WriterState::carries)
                .map(WriterState::subtask)
                .toList();
        if (carrying.isEmpty()) {
            return;
        }
        int notices = db.notices(sink.sinkId()).size();
        out.println("CARRIED: the writer state(s) of subtask(s) " + CarriedWrites.subtasks(carrying)
                + " carry writes past "
                + "the barrier of checkpoint " + sink.checkpointId() + " (" + notices
                + " notice(s) visible now), which "
                + "follow the commits above and are in no table yet. A job restored from this checkpoint with the sink's "
                + "state writes them; if none will be, write them: eosink-admin carried " + args.path() + " --sink-id "
                + sink.sinkId() + " --url ... --table [schema.]name --apply");
    }

    private int apply(AdminDatabase db, String sinkId, List<Step> steps, List<String> lost) throws AdminException {
        int committed = 0;
        int rolledBack = 0;
        List<String> failures = new ArrayList<>();
        for (Step s : steps) {
            try {
                if (s.commit) {
                    db.commit(s.tx);
                    OptionalLong marker = db.marker(s.tx.id());
                    if (marker.isEmpty()) {
                        failures.add("committed " + s.tx.id() + " but found no marker row for it");
                        continue;
                    }
                    out.println("committed   " + s.tx.id() + " (marker row found: " + marker.getAsLong() + " rows)");
                    committed++;
                } else {
                    db.rollback(s.tx);
                    out.println("rolled back " + s.tx.id());
                    rolledBack++;
                }
            } catch (AdminException e) {
                failures.add(e.getMessage());
            }
        }
        List<AdminDatabase.Prepared> left = db.prepared(Optional.of(sinkId));
        out.println("summary: " + committed + " committed (each proven by its marker row), " + rolledBack
                + " rolled back, " + left.size() + " of sink id " + sinkId + " still prepared"
                + (lost.isEmpty() ? "" : ", " + lost.size() + " LOST"));
        if (!failures.isEmpty() || !left.isEmpty() || !lost.isEmpty()) {
            for (String f : failures) {
                out.println("FAILED: " + f);
            }
            throw new AdminException("resolve of sink id " + sinkId + " did not finish cleanly: " + failures.size()
                    + " failure(s), " + left.size() + " still prepared, " + lost.size() + " lost (see above). Remedy: "
                    + "fix what the failures say and run resolve --apply again (it is idempotent)");
        }
        return 0;
    }

    private String sinkId(CheckpointReader.Contents contents) throws AdminException {
        if (args.sinkId().isPresent()) {
            return args.sinkId().get();
        }
        if (contents.sinks().size() == 1) {
            return contents.sinks().keySet().iterator().next();
        }
        throw new AdminException(
                AdminException.USAGE,
                "checkpoint " + contents.checkpointId() + " holds "
                        + (contents.sinks().isEmpty()
                                ? "no eosink sink's state"
                                : "the state of several sinks: "
                                        + String.join(", ", contents.sinks().keySet()) + "; name one with --sink-id"));
    }
}
