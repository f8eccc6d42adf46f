/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.core.protocol.WriterState;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code carried}: the writes an upsert writer carried past a barrier in a checkpoint's or savepoint's writer state,
 * which only that snapshot holds (they had to follow a commit that came with a later checkpoint). The sink records
 * them in its marker table as notices (one per committed transaction that carried writes, deleted by the
 * transaction that writes them). Without a snapshot, lists the visible notices; with one, shows what each subtask's
 * writer state carries and whether those are the writes the notices announce; with {@code --table} and {@code
 * --apply}, writes them into that table in one transaction that also deletes their notices (a dry run without
 * {@code --apply}). Writes only when no live job holds the sink's guard and nothing of the sink is prepared: the
 * writes follow the commit of the snapshot's transactions.
 */
final class CarriedCommand {

    /** The writes shown per subtask; the count says how many there are. */
    static final int SHOWN_PER_SUBTASK = 10;

    private final Admin.Arguments args;
    private final Map<String, String> env;
    private final PrintStream out;

    CarriedCommand(Admin.Arguments args, Map<String, String> env, PrintStream out) {
        this.args = args;
        this.env = env;
        this.out = out;
    }

    int run() throws AdminException {
        if (args.positional.size() > 1) {
            throw new AdminException(
                    AdminException.USAGE, "carried takes at most one checkpoint path; got " + args.positional);
        }
        if (args.positional.isEmpty() && (args.apply || args.table != null)) {
            throw new AdminException(
                    AdminException.USAGE,
                    "carried --table/--apply needs the checkpoint or savepoint "
                            + "whose writer state carries the writes (a chk-N directory, a savepoint directory, or its _metadata)");
        }
        if (args.apply && args.table == null) {
            throw new AdminException(
                    AdminException.USAGE, "carried --apply needs --table [schema.]name: the sink's table");
        }
        Optional<CheckpointReader.Contents> contents = args.positional.isEmpty()
                ? Optional.empty()
                : Optional.of(CheckpointReader.read(args.positional.get(0)));
        String sinkId = sinkId(contents);
        try (AdminDatabase db = args.connect(env)) {
            contents.ifPresent(
                    c -> out.println("checkpoint " + c.checkpointId() + " (" + c.metadata() + "), sink id " + sinkId));
            out.println("database: " + db.describe());
            List<AdminDatabase.Notice> notices = db.notices(sinkId);
            printNotices(sinkId, notices);
            if (contents.isEmpty()) {
                if (!notices.isEmpty()) {
                    out.println(
                            "the writes are in the writer state of the checkpoint or savepoint taken at that barrier: "
                                    + "eosink-admin carried <checkpoint> --sink-id " + sinkId
                                    + " shows them, and with --table "
                                    + "[schema.]name --apply writes them");
                }
                return 0;
            }
            SinkState sink = contents.get().sink(sinkId);
            return withSnapshot(db, sink, notices);
        }
    }

    private int withSnapshot(AdminDatabase db, SinkState sink, List<AdminDatabase.Notice> notices)
            throws AdminException {
        String path = args.positional.get(0);
        SortedMap<Integer, CarriedWrites> carried = new TreeMap<>();
        for (WriterState state : sink.writerStates()) {
            if (!state.carries()) {
                continue;
            }
            String where = "the writer state of subtask " + state.subtask() + " in checkpoint " + sink.checkpointId();
            CarriedWrites writes = CarriedWrites.decode(state.carried(), where);
            carried.put(state.subtask(), writes);
            out.println("subtask " + state.subtask() + ": writer state of checkpoint " + state.checkpointId() + ", run "
                    + state.run().orElse("(none)") + ", carries "
                    + writes.writes().size() + " write(s) ("
                    + writes.upserts() + " upsert(s), " + writes.deletes() + " delete(s)) for " + writes.describe());
            writes.writes().stream().limit(SHOWN_PER_SUBTASK).forEach(w -> out.println("    " + writes.show(w)));
            if (writes.writes().size() > SHOWN_PER_SUBTASK) {
                out.println("    ... and " + (writes.writes().size() - SHOWN_PER_SUBTASK) + " more");
            }
        }
        if (carried.isEmpty()) {
            out.println("no writer state of sink id " + sink.sinkId() + " in checkpoint " + sink.checkpointId()
                    + " carries writes");
        }

        List<String> mismatches = new ArrayList<>();
        Set<Integer> mismatched = new TreeSet<>();
        SortedMap<Integer, CarriedWrites> noticed = new TreeMap<>();
        for (AdminDatabase.Notice n : notices) {
            Optional<String> why = mismatch(sink, n.notice().transaction());
            if (why.isPresent()) {
                mismatches.add(n.notice() + ": " + why.get());
                mismatched.add(n.notice().subtask());
            } else {
                noticed.put(n.notice().subtask(), carried.get(n.notice().subtask()));
            }
        }
        for (int subtask : carried.keySet()) {
            if (!noticed.containsKey(subtask) && !mismatched.contains(subtask)) {
                out.println(
                        "subtask " + subtask + ": no notice: its writes were written (by a restored writer, or by this "
                                + "tool), or given up, or the transaction prepared at its barrier is not committed yet; they are "
                                + "not written again");
            }
        }
        if (!mismatches.isEmpty()) {
            mismatches.forEach(m -> out.println("MISMATCH: " + m));
            throw new AdminException("the notices of carried writes of sink id '" + sink.sinkId() + "' announce writes "
                    + "that checkpoint " + sink.checkpointId()
                    + " does not carry (see MISMATCH above), so writing this "
                    + "snapshot's writes could leave those keys at another value. Remedy: run carried with the checkpoint "
                    + "or savepoint of the run and checkpoint each notice names (the newest one the job took), or restore "
                    + "the job from it with the sink's state");
        }
        if (notices.isEmpty()) {
            out.println("no notice of carried writes of sink id " + sink.sinkId() + ": nothing to write");
            return 0;
        }
        List<Integer> subtasks = new ArrayList<>(noticed.keySet());
        out.println("the snapshot's carried writes are the ones the notices announce: subtask(s) "
                + CarriedWrites.subtasks(subtasks) + " (same subtask and run, noticed at or before checkpoint "
                + sink.checkpointId() + ")");
        refuseWhilePrepared(db, sink, path);
        if (args.table == null) {
            out.println("to write them: eosink-admin carried " + path + " --sink-id " + sink.sinkId() + " --url ... "
                    + "--table [schema.]name --apply (the sink's table; a dry run without --apply)");
            return 0;
        }
        refuseWhileGuarded(db, sink);
        for (Map.Entry<Integer, CarriedWrites> e : noticed.entrySet()) {
            if (e.getValue().encoding() != db.carriedEncoding()) {
                throw new AdminException(
                        "the writes of subtask " + e.getKey() + " were carried by a sink that keeps them as "
                                + e.getValue().encoding() + ", and " + db.describe() + " takes " + db.carriedEncoding()
                                + " (the tool writes the PostgreSQL sink's into PostgreSQL and the XA sink's into MariaDB). Remedy: "
                                + "restore the job from the snapshot with the sink's state (its writers write them)");
            }
        }
        SqlIdentifier table = TableName.parse(args.table, "--table");
        long upserts =
                noticed.values().stream().mapToLong(CarriedWrites::upserts).sum();
        long deletes =
                noticed.values().stream().mapToLong(CarriedWrites::deletes).sum();
        if (!args.apply) {
            out.println("dry run: would write " + upserts + " upsert(s) and " + deletes + " delete(s) of subtask(s) "
                    + CarriedWrites.subtasks(subtasks) + " into " + db.tableSql(table) + " and delete their "
                    + notices.size()
                    + " notice(s), in one transaction; nothing changed. Run again with --apply to do it.");
            return 0;
        }
        CarriedWriting.Written written = db.writeCarried(table, sink.sinkId(), noticed, notices.size());
        out.println("wrote " + written.upserts + " upsert(s) and " + written.deletes + " delete(s) into "
                + db.tableSql(table) + " and deleted " + written.notices + " notice(s) of subtask(s) "
                + CarriedWrites.subtasks(subtasks) + ", in one transaction, committed");
        out.println("notices of carried writes of sink id " + sink.sinkId() + " left: "
                + db.notices(sink.sinkId()).size());
        return 0;
    }

    /**
     * Why {@code carrying} (the transaction a notice names) did not carry this snapshot's writes of its subtask: the
     * state of that subtask must carry writes, be of the same run, and be taken at or after the notice's barrier
     * (held writes are noticed at every barrier they are carried past; the newest snapshot holds them all).
     */
    private static Optional<String> mismatch(SinkState sink, TransactionId carrying) {
        Optional<WriterState> state = sink.writerStates().stream()
                .filter(s -> s.subtask() == carrying.subtask())
                .findFirst();
        if (state.isEmpty()) {
            return Optional.of(
                    "checkpoint " + sink.checkpointId() + " holds no writer state of subtask " + carrying.subtask());
        }
        if (!state.get().carries()) {
            return Optional.of("the writer state of subtask " + carrying.subtask() + " in checkpoint "
                    + sink.checkpointId() + " carries no writes");
        }
        if (!state.get().run().map(carrying.run()::equals).orElse(false)) {
            return Optional.of("the writer state of subtask " + carrying.subtask() + " is of run "
                    + state.get().run().orElse("(none)") + ", the notice of run " + carrying.run());
        }
        if (carrying.checkpointId() > sink.checkpointId()) {
            return Optional.of("noticed at checkpoint " + carrying.checkpointId() + ", after checkpoint "
                    + sink.checkpointId() + ": a later snapshot carries them");
        }
        return Optional.empty();
    }

    /**
     * The writes follow the commit of the snapshot's transactions, and a prepared transaction of the sink holds the
     * row locks of what it wrote: nothing of the sink may be prepared.
     */
    private void refuseWhilePrepared(AdminDatabase db, SinkState sink, String path) throws AdminException {
        List<AdminDatabase.Prepared> prepared = db.prepared(Optional.of(sink.sinkId()));
        if (prepared.isEmpty()) {
            return;
        }
        List<TransactionId> promised = prepared.stream()
                .map(AdminDatabase.Prepared::id)
                .filter(sink::promises)
                .toList();
        throw new AdminException(prepared.size() + " transaction(s) of sink id '" + sink.sinkId()
                + "' are still prepared ("
                + prepared.stream().map(p -> p.id().toString()).collect(Collectors.joining(", ")) + "; promised by "
                + "checkpoint " + sink.checkpointId() + ": " + (promised.isEmpty() ? "none" : promised)
                + "). The carried "
                + "writes must follow the commit of the snapshot's transactions, and a prepared transaction holds the row "
                + "locks of its rows. Remedy: run resolve first (eosink-admin resolve " + path + " --sink-id "
                + sink.sinkId() + " --apply), then carried again");
    }

    /** Every noticed subtask has a writer state (see {@link #mismatch}), so the writer states give the indices. */
    private void refuseWhileGuarded(AdminDatabase db, SinkState sink) throws AdminException {
        List<String> holders =
                db.guardHoldersUpTo(sink.sinkId(), sink.writerStates().stream().mapToInt(WriterState::subtask));
        if (!holders.isEmpty()) {
            throw new AdminException(
                    AdminException.REFUSED,
                    "refused: a live job holds the ownership guard of sink id '"
                            + sink.sinkId() + "' (" + String.join("; ", holders)
                            + "). That job writes into the table and owns "
                            + "the carried writes' notices; writing them here could put an older value over its newer one. "
                            + "Remedy: stop the job first, then run carried again");
        }
        out.println("ownership guard: free (no live job with sink id " + sink.sinkId() + ")");
    }

    private void printNotices(String sinkId, List<AdminDatabase.Notice> notices) {
        out.println("notices of carried writes of sink id " + sinkId + ": " + notices.size()
                + (notices.isEmpty() ? "" : " (writes an upsert writer carried past a barrier, not written since)"));
        if (notices.isEmpty()) {
            return;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"subtask", "checkpoint", "writes", "noticed at", "carried past the barrier of"});
        for (AdminDatabase.Notice n : notices) {
            rows.add(new String[] {
                Integer.toString(n.notice().subtask()),
                Long.toString(n.notice().transaction().checkpointId()),
                Long.toString(n.notice().writes()),
                Text.time(n.at()),
                n.notice().transaction().toString()
            });
        }
        Text.table(rows).forEach(out::println);
    }

    private String sinkId(Optional<CheckpointReader.Contents> contents) throws AdminException {
        if (args.sinkId().isPresent()) {
            return args.sinkId().get();
        }
        if (contents.isPresent() && contents.get().sinks().size() == 1) {
            return contents.get().sinks().keySet().iterator().next();
        }
        throw new AdminException(
                AdminException.USAGE,
                "carried needs --sink-id"
                        + contents.map(c -> " (checkpoint " + c.checkpointId() + " holds "
                                        + (c.sinks().isEmpty()
                                                ? "no eosink sink's state)"
                                                : "the state of "
                                                        + String.join(
                                                                ", ", c.sinks().keySet()) + ")"))
                                .orElse(""));
    }
}
