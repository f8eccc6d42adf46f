/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.RewindPolicy;
import dev.eosink.core.TransactionId;
import dev.eosink.testing.hardcases.ProtocolTrace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Judges a {@link History} by what the sink promises (docs/guarantees.md), never by timing. The
 * expected table follows from the history alone, because the source is a function of its position:
 * the scenario's final <em>line of history</em> (the last job, the job whose snapshot it restored, and
 * so on back to a fresh start) read every id once, each job the ids after the snapshot it restored up
 * to the snapshot the next one restored. So:
 *
 * <ol>
 *   <li><b>Exact on the line</b>: the committed transactions of that line (each job's up to the
 *       checkpoint the next job restored; all of the last job's) hold every id 0..{@link
 *       Scenario#IDS}-1 exactly once. A transaction committed after the checkpoint the next job restored
 *       is a rewind's duplicate, which the docs announce; it is allowed only if it committed before
 *       that next job started (rule 3).
 *   <li><b>Atomic</b>: the table holds exactly the ids of the committed transactions (by their markers),
 *       as many times as they hold them: nothing of an uncommitted transaction is visible.
 *   <li><b>Only what was promised</b>: every transaction committed while a job ran is that job's own,
 *       or one its restored snapshot promised (of the line it restored, named up to that snapshot's
 *       checkpoint, and only if the sink's state was restored).
 *   <li><b>Refusals the docs promise</b>: a job the sink refused at start was started without the
 *       sink's state among another execution's prepared transactions ({@code leftoverPolicy(FAIL)}), or
 *       with it at a higher parallelism among another run's transactions on indices the snapshot did not
 *       have ({@link #abandonedOnNewIndices}, a documented limit), or restored a snapshot older than a
 *       commit of the sink ({@code rewindPolicy(FAIL)}), which such a start with the sink's state must be,
 *       if a transaction prepared since its snapshot was taken committed (named after the snapshot's
 *       checkpoint, or by another run); and it leaves
 *       nothing of its own, committed or prepared. Any other failure of a job is a violation, and so is
 *       a job that never ends.
 *   <li><b>Nothing prepared</b> of the final line once it ended. What an abandoned line left prepared (a
 *       plain savepoint never restored, a cancelled job's last checkpoint) stays prepared by design
 *       until an operator resolves it: the explorer rolls it back as {@code eosink-admin resolve}
 *       would, and says so in the history's notes. An operator's {@code eosink-admin resolve} against the
 *       newest snapshot of a dead job ends with exit code 0.
 *   <li><b>Rollbacks of documented paths only</b>: no job rolls back what the snapshot it restored with
 *       the sink's state promised; a job started without the sink's state under {@code
 *       leftoverPolicy(FAIL)} rolls back only its own transactions (another execution's are refused); a
 *       job refused as a rewind rolls back nothing but its own (the refusal comes before any rollback,
 *       so that the newer snapshot stays restorable).
 * </ol>
 *
 * <p>In {@link WriteMode#CHANGELOG} the table holds each key's last write, not the records: a record
 * written twice, or lost, shows only where it was its key's last write, and which transaction held a
 * record the trace cannot always tell (an upsert writer carries records past a barrier, and writes
 * carried ones outside any prepared transaction). So rules 1 and 2 give way to one: <b>the replay</b>,
 * the table equals {@link ChangelogIds#expected()} (every key at the value of its last write, every key
 * the input deletes last absent, no other key), which holds after any restore, rewind or fresh start of
 * the final line, since that line writes every record after its snapshot in order. The one exception is a
 * rewind across lines of history, rule 1's duplicates in this mode: a key another line wrote, in a transaction
 * committed after the final line wrote the key's last record, keeps that line's write, since the final line
 * never writes the key again. Rules 3 to 5 hold as they are; a start without the sink's state may also be
 * refused for writes carried past a barrier that only the snapshot's writer state holds (docs/guarantees.md, "Writes carried past a barrier").
 */
public final class Oracle {

    private static final Pattern LABEL = Pattern.compile("^([A-Z][A-Z ]+):");
    private static final Pattern GID = Pattern.compile("eos1/[^,\\]\\s]+");
    private static final Pattern ACT = Pattern.compile("^run \\d+ (failed|was refused|committed|rolled back)");

    private Oracle() {}

    /** The kind of refusal a job's failure messages show, if they show one. */
    static Optional<String> refusal(String messages) {
        if (messages.contains("left by other job(s)")) {
            return Optional.of("leftovers");
        }
        if (messages.contains("Refused (rewindPolicy FAIL)")) {
            return Optional.of("rewind");
        }
        if (messages.contains("in that checkpoint's or savepoint's writer state only")) {
            // A start without the sink's state that finds notices of writes an upsert writer carried past a barrier.
            return Optional.of("carried");
        }
        if (messages.contains("yet no restored committer")) {
            // A committer task not started within claimWait: documented for chains that put it elsewhere.
            return Optional.of("committer");
        }
        return Optional.empty();
    }

    /**
     * The kind of a violation, without its run numbers, ids and names: "LOSS", "DUPLICATES", "NOT ATOMIC",
     * "NOT THE REPLAY", "LEFT PREPARED", "FOREIGN MARKER", "RESOLVE FAILED", "DID NOT FINISH", "MISSED REWIND",
     * or what a run did ("failed", "was refused", "committed", "rolled back"). The shrinker keeps a smaller scenario only if it violates
     * in a kind the original did.
     */
    static String kind(String violation) {
        Matcher label = LABEL.matcher(violation);
        if (label.find()) {
            return label.group(1);
        }
        Matcher act = ACT.matcher(violation);
        return act.find() ? act.group(1) : violation;
    }

    /** What the history shows against the promises above; empty when it keeps them all. */
    public static List<String> violations(History history) {
        List<String> violations = new ArrayList<>();
        for (History.Run run : history.runs) {
            judgeEnd(run, history, violations);
            judgeCommits(run, history, violations);
            judgeRollbacks(run, history, violations);
        }
        Set<String> committed = new HashSet<>();
        history.committed.keySet().forEach(id -> committed.add(id.toString()));
        for (String gid : committed) {
            if (!history.preparedByName().containsKey(gid)) {
                violations.add("FOREIGN MARKER: " + gid + " committed, which no writer of the scenario prepared");
            }
        }
        for (History.Resolution resolution : history.resolutions) {
            if (resolution.exitCode != 0) {
                violations.add("RESOLVE FAILED: " + resolution + ", given the newest snapshot of a dead job, as "
                        + "docs/operations.md says; it printed: " + resolution.printed.strip());
            }
        }
        if (!history.unfinished.isEmpty()) {
            // The final line never ended: what it holds, and leaves prepared, says nothing yet.
            violations.add("DID NOT FINISH: " + history.unfinished);
            return violations;
        }
        List<History.Run> line = finalLine(history);
        if (!history.mode.changelog()) {
            judgeLine(line, committed, history, violations);
            judgeAtomic(committed, history, violations);
        } else {
            judgeReplay(line, history, violations);
        }
        Set<String> lineOwn = new HashSet<>();
        line.forEach(run -> lineOwn.addAll(history.ownedBy(run)));
        for (String gid : history.preparedAtEnd) {
            if (lineOwn.contains(gid)) {
                violations.add("LEFT PREPARED: " + gid + ", of the final line of history, once it ended");
            }
        }
        return violations;
    }

    /** Rule 1: the committed transactions of the final line hold every id exactly once. */
    private static void judgeLine(
            List<History.Run> line, Set<String> committed, History history, List<String> violations) {
        Map<String, ProtocolTrace.Event> prepared = history.preparedByName();
        Set<String> onLine = lineTransactions(line, history).keySet();
        Map<Long, Integer> lineCounts = new TreeMap<>();
        for (String gid : onLine) {
            if (committed.contains(gid)) {
                for (long id : prepared.get(gid).ids()) {
                    lineCounts.merge(id, 1, Integer::sum);
                }
            }
        }
        List<Long> missing = new ArrayList<>();
        List<Long> twice = new ArrayList<>();
        for (long id = 0; id < Scenario.IDS; id++) {
            int n = lineCounts.getOrDefault(id, 0);
            if (n == 0) {
                missing.add(id);
            } else if (n > 1) {
                twice.add(id);
            }
        }
        if (!missing.isEmpty()) {
            violations.add("LOSS: " + missing.size() + " ids are in no committed transaction of the final line of "
                    + "history (runs " + indexes(line) + "); the first: " + first(missing));
        }
        if (!twice.isEmpty()) {
            violations.add("DUPLICATES: " + twice.size() + " ids are in more than one committed transaction of the "
                    + "final line of history (runs " + indexes(line) + "); the first: " + first(twice));
        }
    }

    /**
     * The transactions of the final line, each with the run that prepared it: each run's up to the checkpoint
     * the next run of the line restored, all of the last run's.
     */
    private static Map<String, History.Run> lineTransactions(List<History.Run> line, History history) {
        Map<String, History.Run> onLine = new HashMap<>();
        for (int i = 0; i < line.size(); i++) {
            History.Run run = line.get(i);
            long upTo = i + 1 < line.size() ? line.get(i + 1).origin.checkpointId : Long.MAX_VALUE;
            history.preparedBy(run).forEach((gid, e) -> {
                if (e.checkpointOfGid() <= upTo) {
                    onLine.put(gid, run);
                }
            });
        }
        return onLine;
    }

    /** Rule 2: the table holds exactly the ids of the committed transactions, as many times as they do. */
    private static void judgeAtomic(Set<String> committed, History history, List<String> violations) {
        Map<Long, Long> expected = new HashMap<>();
        for (String gid : committed) {
            ProtocolTrace.Event e = history.preparedByName().get(gid);
            if (e != null) {
                for (long id : e.ids()) {
                    expected.merge(id, 1L, Long::sum);
                }
            }
        }
        if (!expected.equals(history.idCounts)) {
            violations.add("NOT ATOMIC: the table differs from what the committed transactions hold: "
                    + difference(expected, history.idCounts));
        }
    }

    /**
     * The changelog's rule: the table is the replay of the whole input, key by key, but for what a rewind across
     * lines of history leaves ({@link #leftByOtherLines}).
     */
    private static void judgeReplay(List<History.Run> line, History history, List<String> violations) {
        Map<Long, Long> expected = ChangelogIds.expected();
        Map<Long, Long> actual = new HashMap<>(history.rowsByKey);
        if (expected.equals(actual)) {
            return;
        }
        // A key another line left as it wrote it is judged as if it held its replayed value.
        Map<Long, Set<Long>> left = leftByOtherLines(line, history);
        left.forEach((key, values) -> {
            Long value = actual.get(key);
            if (values.contains(value == null ? ABSENT : value)) {
                Long replayed = expected.get(key);
                if (replayed == null) {
                    actual.remove(key);
                } else {
                    actual.put(key, replayed);
                }
            }
        });
        if (expected.equals(actual)) {
            return;
        }
        Map<Long, Long> lastRecord = ChangelogIds.lastRecords();
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        for (Map.Entry<Long, Long> e : new TreeMap<>(expected).entrySet()) {
            Long value = actual.get(e.getKey());
            if (value == null) {
                missing.add("key " + e.getKey() + " (its last write: " + e.getValue() + ")");
            } else if (!value.equals(e.getValue())) {
                stale.add("key " + e.getKey() + " = " + value + " instead of " + e.getValue());
            }
        }
        for (Map.Entry<Long, Long> e : new TreeMap<>(actual).entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                Long last = lastRecord.get(e.getKey());
                extra.add("key " + e.getKey() + " = " + e.getValue()
                        + (last == null
                                ? " (no record writes it)"
                                : " (its last record, " + last + ", is " + ChangelogIds.kind(last) + ")"));
            }
        }
        StringBuilder text = new StringBuilder("NOT THE REPLAY: the table (" + actual.size() + " rows) differs from "
                + "the replay of ids 0.." + (Scenario.IDS - 1) + " in order (" + expected.size() + " rows):");
        appendKeys(text, extra, "keys that should not be there (a delete missed, or not done)");
        appendKeys(text, missing, "keys missing");
        appendKeys(text, stale, "keys not at their last write");
        violations.add(text.toString());
    }

    /** In {@link #leftByOtherLines}: the key's row deleted. */
    private static final long ABSENT = Long.MIN_VALUE;

    /**
     * What a rewind across lines of history may leave in a changelog's table, per key: the values ({@link
     * #ABSENT} for a delete) that records of the key wrote in transactions of another line, committed after
     * the final line wrote the key's last record (while a run after it ran, or between runs). The final line
     * never writes such a key again (its records after its snapshots come later in the input), so the other
     * line's write stays: the sink announces the rewind ({@code rewindPolicy}, docs/guarantees.md), as insert
     * mode's rule 1 allows the rewind's duplicates. A key whose last record no committed transaction of the
     * final line holds gets no allowance. A record a writer may have carried past the barrier of the snapshot
     * the next run of the line restored ({@link #writtenBy}) counts as written by that next run, as it
     * writes what it restored carried as it starts.
     */
    private static Map<Long, Set<Long>> leftByOtherLines(List<History.Run> line, History history) {
        Map<String, History.Run> onLine = lineTransactions(line, history);
        Map<String, History.Run> writers = writtenBy(line, onLine, history);
        Map<Long, Integer> lastWrittenBy = new HashMap<>();
        onLine.keySet().forEach(gid -> {
            if (history.committed.containsKey(TransactionId.parse(gid).orElse(null))) {
                for (long id : history.preparedByName().get(gid).ids()) {
                    lastWrittenBy.put(id, writers.get(gid).index);
                }
            }
        });
        Map<Long, Long> lastRecord = ChangelogIds.lastRecords();
        Map<Long, Set<Long>> left = new HashMap<>();
        for (TransactionId id : history.committed.keySet()) {
            String gid = id.toString();
            ProtocolTrace.Event e = history.preparedByName().get(gid);
            if (e == null || onLine.containsKey(gid)) {
                continue;
            }
            int committedDuring = committedDuring(gid, history);
            for (long i : e.ids()) {
                long key = ChangelogIds.key(i);
                Integer writer = lastWrittenBy.get(lastRecord.get(key));
                if (writer != null && committedDuring > writer) {
                    left.computeIfAbsent(key, k -> new HashSet<>()).add(ChangelogIds.writes(i) ? i : ABSENT);
                }
            }
        }
        return left;
    }

    /**
     * Which run of the line wrote the records of each of its transactions: the run that prepared it, but for
     * the records its writer may have carried past the barrier of the snapshot the next run of the line
     * restored with the sink's state. Those the next run writes as it starts. Which records a writer carried
     * the trace does not tell, only at which barriers it carried some ({@link History#carriedPast}): so every
     * transaction of a subtask named up to that snapshot's checkpoint, from the last one back while each had
     * writes carried past its barrier, counts as written by the next run (a chain of carried barriers, as
     * commits lag, may hold records of each).
     */
    private static Map<String, History.Run> writtenBy(
            List<History.Run> line, Map<String, History.Run> onLine, History history) {
        Map<String, History.Run> writers = new HashMap<>(onLine);
        for (int i = 0; i + 1 < line.size(); i++) {
            History.Run run = line.get(i);
            History.Run next = line.get(i + 1);
            if (!next.sinkStateRestored) {
                continue;
            }
            Set<String> carried = history.carriedPast(run);
            Map<Integer, List<String>> bySubtask = new TreeMap<>();
            history.preparedBy(run).forEach((gid, e) -> {
                if (e.checkpointOfGid() <= next.origin.checkpointId) {
                    bySubtask.computeIfAbsent(e.subtask, s -> new ArrayList<>()).add(gid);
                }
            });
            for (List<String> gids : bySubtask.values()) {
                gids.sort(Comparator.comparingLong(Oracle::checkpointOf).reversed());
                for (String gid : gids) {
                    if (!carried.contains(gid)) {
                        break;
                    }
                    writers.put(gid, next);
                }
            }
        }
        return writers;
    }

    /**
     * The index of the first run that saw {@code gid} committed when it ended (one that began after the commit,
     * when an operator's resolve committed it between runs); past the last run if none did.
     */
    private static int committedDuring(String gid, History history) {
        for (History.Run run : history.runs) {
            if (run.markersAfter.contains(gid)) {
                return run.index;
            }
        }
        return Integer.MAX_VALUE;
    }

    private static void appendKeys(StringBuilder text, List<String> keys, String what) {
        if (!keys.isEmpty()) {
            text.append(' ')
                    .append(keys.size())
                    .append(' ')
                    .append(what)
                    .append(", the first: ")
                    .append(String.join("; ", keys.subList(0, Math.min(10, keys.size()))))
                    .append('.');
        }
    }

    private static void judgeEnd(History.Run run, History history, List<String> violations) {
        if (run.end == History.End.FAILED) {
            violations.add("run " + run.index + " failed: " + run.failure);
        }
        if (run.end != History.End.REFUSED) {
            judgeRewindSeen(run, history, violations);
            return;
        }
        String kind = refusal(run.failure).orElseThrow();
        if (kind.equals("committer")) {
            if (run.start.chaining == Step.Chaining.ON) {
                violations.add("run " + run.index + " was refused for a restored committer it did not see, with its "
                        + "committer chained to it: " + run.failure);
            }
        } else if (kind.equals("carried")) {
            if (run.sinkStateRestored) {
                violations.add("run " + run.index + " was refused for writes carried past a barrier that it cannot "
                        + "see, but its sink's state was restored: " + run.failure);
            }
        } else if (kind.equals("leftovers")) {
            if (run.sinkStateRestored
                    ? !abandonedOnNewIndices(run, history).containsAll(refusedNames(run.failure))
                    : run.preparedBefore.isEmpty()) {
                violations.add("run " + run.index + " was refused for leftovers, but "
                        + (run.sinkStateRestored
                                ? "its sink's state was restored, and no other run's transaction was "
                                        + "prepared on a subtask index its snapshot did not have"
                                : "no transaction of the sink was prepared when it started")
                        + ": " + run.failure);
            }
        } else if (run.start.rewindPolicy != RewindPolicy.FAIL
                || run.origin == null
                || run.markersBefore.stream().noneMatch(g -> committedSince(run.origin, g, history))) {
            violations.add("run " + run.index + " was refused as a rewind, but nothing was committed after its "
                    + "snapshot's checkpoint, nor by another run since the snapshot was taken: " + run.failure);
        }
        // Only a commit counts: another subtask may reach the end of its input and prepare while the job
        // fails (the refusal's message says so); that is rolled back with what abandoned lines leave.
        for (String gid : history.preparedBy(run).keySet()) {
            if (run.markersAfter.contains(gid) && !run.markersBefore.contains(gid)) {
                violations.add("run " + run.index + " was refused, yet committed its own " + gid);
            }
        }
    }

    /** Rule 3: what committed while the run ran is its own, or promised by the snapshot it restored. */
    private static void judgeCommits(History.Run run, History history, List<String> violations) {
        Set<String> allowed = new HashSet<>(history.preparedBy(run).keySet());
        allowed.addAll(promisedTo(run, history));
        for (String gid : run.markersAfter) {
            if (!run.markersBefore.contains(gid) && !allowed.contains(gid)) {
                violations.add("run " + run.index + " committed " + gid + ", neither its own nor promised by "
                        + (run.origin == null
                                ? "a snapshot (it started fresh)"
                                : run.origin + (run.sinkStateRestored ? "" : " (restored without the sink's state)")));
            }
        }
    }

    /**
     * Rule 6, rollbacks of documented paths only. A run never rolls back what the snapshot it restored with
     * the sink's state promised (its restored committers commit that). A run that started without the
     * sink's state under {@code leftoverPolicy(FAIL)} rolls back nothing of another execution but what a
     * restored checkpoint N tells it to: transactions named after N, whose records the restored sources
     * replay. The rest of another execution's prepared transactions are refused, never taken for its own
     * (a fixed job id makes no difference). A run's own are what its writers prepared or tried to prepare
     * (the trace, not the names, tells: a name is what the sink under judgement chose): a prepare the server
     * made but whose answer a crash lost is the run's own too.
     */
    private static void judgeRollbacks(History.Run run, History history, List<String> violations) {
        Set<String> rolledBack = history.rolledBackBy(run);
        if (rolledBack.isEmpty()) {
            return;
        }
        Set<String> own = history.ownedBy(run);
        Set<String> promised = promisedTo(run, history);
        boolean refusedRewind = run.end == History.End.REFUSED
                && refusal(run.failure).filter("rewind"::equals).isPresent();
        for (String gid : rolledBack) {
            if (own.contains(gid)) {
                continue;
            }
            if (refusedRewind) {
                violations.add("run " + run.index + " was refused as a rewind, yet rolled back " + gid
                        + ", not its own: a restore of the snapshot that promised it would report it LOST");
                continue;
            }
            boolean afterRestored = run.origin != null && checkpointOf(gid) > run.origin.checkpointId;
            if (promised.contains(gid)) {
                violations.add("run " + run.index + " rolled back " + gid + ", which " + run.origin
                        + " it restored with the sink's state promised");
            } else if (!run.sinkStateRestored && run.start.leftoverPolicy == LeftoverPolicy.FAIL && !afterRestored) {
                violations.add("run " + run.index + " rolled back " + gid + ", another execution's"
                        + (run.origin == null
                                ? ""
                                : " named at or before its restored checkpoint " + run.origin.checkpointId)
                        + ", though it started without the sink's state under leftoverPolicy FAIL (a refusal was due)");
            }
        }
    }

    /**
     * A run restored with the sink's state under {@code rewindPolicy(FAIL)} that started, though a transaction
     * prepared after its snapshot was taken had committed (named after the snapshot's checkpoint, or by another
     * run), missed the rewind the docs promise to refuse.
     */
    private static void judgeRewindSeen(History.Run run, History history, List<String> violations) {
        if (run.start.rewindPolicy != RewindPolicy.FAIL
                || !run.sinkStateRestored
                || run.origin == null
                || run.end == History.End.NOT_STARTED) {
            return;
        }
        for (String gid : run.markersBefore) {
            ProtocolTrace.Event e = history.preparedByName().get(gid);
            if (e != null && preparedSince(run.origin, e)) {
                violations.add("MISSED REWIND: run " + run.index + " restored " + run.origin + " under rewindPolicy "
                        + "FAIL, after " + gid + ", prepared since that snapshot was taken, had committed; it was not "
                        + "refused");
                return;
            }
        }
    }

    /**
     * Whether committed transaction {@code gid} makes a restore of {@code snapshot} a rewind: named after the
     * snapshot's checkpoint, or prepared since the snapshot was taken by another run (another line of history,
     * such as a fresh start, whose checkpoints count from 1 again).
     */
    private static boolean committedSince(History.Snapshot snapshot, String gid, History history) {
        if (checkpointOf(gid) > snapshot.checkpointId) {
            return true;
        }
        ProtocolTrace.Event e = history.preparedByName().get(gid);
        return e != null && preparedSince(snapshot, e);
    }

    /**
     * Whether the prepare {@code e} makes a restore of {@code snapshot} a rewind once committed: it came after
     * the snapshot was taken, named after its checkpoint or by another run.
     */
    private static boolean preparedSince(History.Snapshot snapshot, ProtocolTrace.Event e) {
        return e.seq > snapshot.takenSeq && (e.checkpointOfGid() > snapshot.checkpointId || !snapshot.run.owns(e));
    }

    /** The transaction names a refusal's message lists (its "[eos1/..., ...]"); empty if it lists none. */
    static Set<String> refusedNames(String failure) {
        Set<String> names = new HashSet<>();
        Matcher m = GID.matcher(failure);
        while (m.find()) {
            names.add(m.group());
        }
        return names.isEmpty() ? Set.of("(no transaction named)") : names;
    }

    /**
     * What a restore of a snapshot with the sink's state at a higher parallelism than the snapshot's may refuse
     * as leftovers (docs/guarantees.md, "A rescale up over another run's transactions"): transactions prepared
     * when {@code run} started, of subtask indices the snapshot did not have, named at or before its
     * checkpoint, and not promised by it. A subtask of such an index gets no writer state and cannot tell them
     * from a promised transaction whose state another subtask holds; the snapshot never promised them.
     */
    static Set<String> abandonedOnNewIndices(History.Run run, History history) {
        Set<String> abandoned = new HashSet<>();
        if (!run.sinkStateRestored || run.origin == null) {
            return abandoned;
        }
        int taken = run.origin.run.start.parallelism;
        Set<String> promised = promisedTo(run, history);
        for (String gid : run.preparedBefore) {
            TransactionId id = TransactionId.parse(gid).orElse(null);
            if (id != null
                    && id.subtask() >= taken
                    && id.subtask() < run.start.parallelism
                    && id.checkpointId() <= run.origin.checkpointId
                    && !promised.contains(gid)) {
                abandoned.add(gid);
            }
        }
        return abandoned;
    }

    /**
     * The transactions the snapshot {@code run} restored promised it: those its job prepared up to the
     * snapshot's checkpoint, before the snapshot was taken, and so on back along the line while each job
     * restored the sink's state. Empty for a fresh start or a start without the sink's state.
     */
    private static Set<String> promisedTo(History.Run run, History history) {
        Set<String> promised = new HashSet<>();
        History.Snapshot origin = run.origin;
        boolean restored = run.sinkStateRestored;
        while (restored && origin != null) {
            History.Snapshot snapshot = origin;
            history.preparedBy(snapshot.run).forEach((gid, e) -> {
                if (e.checkpointOfGid() <= snapshot.checkpointId && e.seq <= snapshot.takenSeq) {
                    promised.add(gid);
                }
            });
            restored = snapshot.run.sinkStateRestored;
            origin = snapshot.run.origin;
        }
        return promised;
    }

    /** The last run, the run whose snapshot it restored, and so on back to a fresh start; oldest first. */
    static List<History.Run> finalLine(History history) {
        List<History.Run> line = new ArrayList<>();
        History.Run run = history.runs.isEmpty() ? null : history.runs.get(history.runs.size() - 1);
        while (run != null) {
            line.add(0, run);
            run = run.origin == null ? null : run.origin.run;
        }
        return line;
    }

    private static long checkpointOf(String gid) {
        return TransactionId.parse(gid).map(TransactionId::checkpointId).orElse(-1L);
    }

    private static String indexes(List<History.Run> runs) {
        return runs.stream()
                .map(r -> String.valueOf(r.index))
                .reduce((a, b) -> a + ", " + b)
                .orElse("none");
    }

    private static String first(List<Long> ids) {
        return ids.subList(0, Math.min(10, ids.size())).toString();
    }

    private static String difference(Map<Long, Long> expected, Map<Long, Long> actual) {
        List<String> diffs = new ArrayList<>();
        Set<Long> ids = new java.util.TreeSet<>(expected.keySet());
        ids.addAll(actual.keySet());
        for (long id : ids) {
            long e = expected.getOrDefault(id, 0L);
            long a = actual.getOrDefault(id, 0L);
            if (e != a) {
                diffs.add("id " + id + ": " + a + " in the table, " + e + " committed");
                if (diffs.size() == 10) {
                    break;
                }
            }
        }
        return String.join("; ", diffs);
    }
}
