/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.SinkException;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.LockNames;
import dev.eosink.jdbc.dialect.SessionLocks;
import dev.eosink.jdbc.sql.GuardHolder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The two session locks that keep a writer subtask's XA branches its own (see {@link
 * XaWriterSession} for why two):
 *
 * <ul>
 *   <li>the <b>ownership guard</b> of a subtask index, held on the writer's guard connection for as
 *       long as the writer lives: a second live job with the same sink id cannot take it;
 *   <li>the <b>branch lock</b> of a subtask index ({@link JdbcDialect#tryBranchLock}), held by every
 *       epoch connection from before its first {@code XA START} until it ends.
 * </ul>
 *
 * <p>Invariants: once {@link #claim} returned for a subtask index, no session of an earlier writer of
 * that index holds its branch lock, every one the claim saw holding it has left the server's process
 * list, and none can begin a branch any more; an epoch connection begins a branch only after {@link
 * #lockForBranch} took the branch lock and then saw the guard held by this writer's guard session. So
 * recovery, which lists prepared branches after {@link #claim}, sees every branch an earlier writer could
 * still prepare, and a writer whose guard was taken over begins no branch that the new owner's recovery
 * could miss.
 *
 * <p>What the claim does not promise: that the server has let go of those sessions' prepared branches.
 * MariaDB lets go of a session's GET_LOCKs before it leaves the process list, and of its prepared branch
 * only after, and shows no step in between ({@code MariaDbXaTraits}): a session that let go of the branch
 * lock before the claim's first look is not seen, and one seen may be a few steps short of its end. A
 * rollback that reaches its branch then does nothing, and recovery proves each rollback by the branch's
 * marker row ({@link XaWriterSession#rollbackPrepared}).
 *
 * <p>Before its first guard, the guard session takes its execution's mark ({@link
 * JdbcDialect#markExecution}). A claim that gives up on a guard asks whether the holder carries the
 * claimant's mark: a holder that does is an earlier attempt of this job going away, and a restart waits
 * again; one that does not is another job's (or another submission's), and no restart helps: the claim
 * refuses with a {@link MisconfigurationException}. Where the holder is not seen, the job restarts as
 * for a holder going away.
 */
final class XaLocks {

    private static final Logger LOG = LoggerFactory.getLogger(XaLocks.class);
    private static final int GUARD_CHECK_SECONDS = 10;
    /**
     * How long a claim waits, on a database that may lose a branch whose session is ending, once the
     * sessions it saw holding the branch lock left the process list: the server's last steps of a session's
     * end (closing its socket, InnoDB letting go of its prepared branch) take microseconds and show nowhere.
     */
    private static final long ENDING_SESSION_GRACE_MILLIS = 50;

    private final SubtaskContext context;
    private final JdbcDialect dialect;
    /** The dialect's session locks; without them (the generic dialect) there is no guard and no branch lock. */
    private final Optional<SessionLocks> sessionLocks;
    /** The writer's guard connection, never inside a branch. */
    private final Connection guard;
    /** Bounds every call on the guard connection. */
    private final XaIo guardIo;

    private final String sinkHash;
    /** What the sink writes to, for messages. */
    private final String target;
    /** The guard session's id as the database shows it (0: unknown yet, or the dialect has none). */
    private long guardSession;
    /** Whether the guard session took its execution's mark. */
    private boolean marked;
    /** How long to wait for sessions of an earlier writer to end: the claimWait of this subtask's claim. */
    private long claimWaitMillis = SinkSettings.DEFAULT_CLAIM_WAIT.toMillis();

    XaLocks(SubtaskContext context, JdbcDialect dialect, Connection guard, XaIo guardIo, String target) {
        this.context = context;
        this.dialect = dialect;
        this.sessionLocks = dialect.sessionLocks();
        this.guard = guard;
        this.guardIo = guardIo;
        this.target = target;
        this.sinkHash = LockNames.sinkHash(context.sinkId());
    }

    /**
     * Takes the ownership guard of subtask index {@code subtask}, waiting up to {@code waitMillis} for
     * a holder that is going away, then waits (within the same bound) until no session of an earlier
     * writer of that index holds its branch lock.
     */
    void claim(int subtask, long waitMillis) throws SinkException {
        long deadline = System.currentTimeMillis() + waitMillis;
        if (subtask == context.subtask()) {
            claimWaitMillis = waitMillis;
        }
        if (sessionLocks.isEmpty()) {
            return; // nothing to take: the writer warned at start (XaPreflight)
        }
        SessionLocks locks = sessionLocks.get();
        try {
            if (guardSession == 0) {
                guardSession = guardIo.sql("reading the guard's session id", () -> locks.sessionId(guard));
            }
            if (!marked) {
                guardIo.sql("marking the guard's session with its execution", () -> {
                    locks.markExecution(guard, sinkHash, context.execution(), guardSession);
                    return null;
                });
                marked = true;
            }
            long nextLog = 0;
            while (!guardIo.sql("taking the ownership guard", () -> locks.tryGuard(guard, sinkHash, subtask))) {
                long now = System.currentTimeMillis();
                if (now >= nextLog && now < deadline) {
                    // A task going away releases it within seconds; a live job holding it is a second job.
                    LOG.info(
                            "{}: waiting up to {} ms more for the ownership guard of sink id '{}' subtask {} on {}",
                            context,
                            deadline - now,
                            context.sinkId(),
                            subtask,
                            dialect.name());
                    nextLog = now + 5_000;
                }
                if (now >= deadline) {
                    throw notReleased(subtask, waitMillis);
                }
                Thread.sleep(Math.min(500, Math.max(1, deadline - System.currentTimeMillis())));
            }
            awaitEarlierBranchSessions(subtask, deadline, waitMillis);
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not take the ownership guard of subtask " + subtask + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(context + ": interrupted while waiting for the ownership guard", e);
        }
    }

    /**
     * Why the claim of {@code subtask} gave up on its guard, by whose session holds it. The holder and its
     * mark are two looks; a session that ended between them has no mark any more, so one found without
     * this execution's mark counts as another execution's only if it still holds the guard after that
     * look, and else as gone (a restart takes the guard).
     */
    private SinkException notReleased(int subtask, long waitMillis) throws SQLException {
        SessionLocks locks = sessionLocks.orElseThrow();
        long holder = guardIo.sql("reading the guard's holder", () -> locks.guardHolder(guard, sinkHash, subtask));
        GuardHolder whose = holder == 0
                ? GuardHolder.UNKNOWN
                : guardIo.sql(
                        "reading the holder's execution",
                        () -> locks.holderExecution(guard, sinkHash, context.execution(), holder));
        boolean gone = whose == GuardHolder.OTHER
                && guardIo.sql("reading the guard's holder again", () -> locks.guardHolder(guard, sinkHash, subtask))
                        != holder;
        String held = context + ": another live session holds the ownership guard of sink id '" + context.sinkId()
                + "' subtask " + subtask + " on " + dialect.name() + " ("
                + (holder == 0
                        ? "session unknown"
                        : dialect.name() + " session " + holder + (gone ? ", which let go of it just now" : ""))
                + ") and did not release it within " + waitMillis + " ms";
        return (gone ? GuardHolder.UNKNOWN : whose).refusal(held, locks.endSessionSql(holder));
    }

    /**
     * With the guard held: waits until no session of an earlier writer of {@code subtask} holds its
     * branch lock, so that every branch such a session could still prepare (a PREPARE the server was
     * still running when that writer's task manager died) is prepared before recovery lists them.
     * Takes the branch lock and lets it go at once: this writer's epoch connections take it in turn.
     *
     * <p>Then, where the database may lose a branch whose session is ending ({@link
     * JdbcDialect#provesOutcomesByMarker}), waits until every session it saw holding the lock has left the
     * process list, and {@value #ENDING_SESSION_GRACE_MILLIS} ms more. MariaDB lets go of a session's
     * GET_LOCKs before it frees the session's prepared statements and leaves the process list, and of the
     * session's prepared branch a few steps after that, which nothing shows; a rollback of the branch
     * before then would do nothing and lose the branch until the server restarts. After the wait only a
     * server thread stalled that long in those last steps, or a session that let go of the lock before the
     * first look, could still meet that moment, and the rollback's proof names it ({@link
     * XaWriterSession#rollbackPrepared}).
     */
    private void awaitEarlierBranchSessions(int subtask, long deadline, long waitMillis)
            throws SQLException, InterruptedException, SinkException {
        SessionLocks locks = sessionLocks.orElseThrow();
        Set<Long> holders = new LinkedHashSet<>();
        long nextLog = 0;
        long sleep = 2;
        while (!guardIo.sql("taking the branch lock", () -> locks.tryBranchLock(guard, sinkHash, subtask))) {
            long holder = guardIo.sql(
                    "reading the branch lock's holder", () -> locks.branchLockHolder(guard, sinkHash, subtask));
            if (holder != 0) {
                holders.add(holder);
            }
            long now = System.currentTimeMillis();
            if (now >= deadline) {
                throw new SinkException(context + ": a session of an earlier writer of sink id '" + context.sinkId()
                        + "' subtask " + subtask + " into " + target + " (" + dialect.name() + " session "
                        + (holder == 0 ? "unknown" : holder) + ") was still running on the server " + waitMillis
                        + " ms after this writer took the ownership guard. It may still be executing a statement "
                        + "of its XA branch (an XA PREPARE, say), which would prepare that branch after this "
                        + "writer had listed the prepared ones and leave it behind, holding its locks; so "
                        + "recovery waits for it to end. The task fails and the restarted one waits again. Remedy: "
                        + "if no live job owns that session (its program_name / application_name is eosink-xa/"
                        + context.sinkId() + "/" + subtask + "/writer), end it"
                        + (holder == 0 ? "" : " (" + locks.endSessionSql(holder) + ")")
                        + "; or raise claimWait if the server is slow to finish a PREPARE.");
            }
            if (now >= nextLog) {
                LOG.info(
                        "{}: waiting up to {} ms more for {} session {} of an earlier writer of sink id '{}' subtask {} "
                                + "to end: it holds the branch lock, so it may still prepare a branch, which recovery "
                                + "must see",
                        context,
                        deadline - now,
                        dialect.name(),
                        holder,
                        context.sinkId(),
                        subtask);
                nextLog = now + 5_000;
            }
            Thread.sleep(Math.min(sleep, Math.max(1, deadline - System.currentTimeMillis())));
            sleep = Math.min(100, sleep * 2);
        }
        guardIo.sql("letting the branch lock go", () -> {
            locks.releaseBranchLock(guard, sinkHash, subtask);
            return null;
        });
        if (!dialect.xa().provesOutcomesByMarker()) {
            return;
        }
        for (long holder : holders) {
            if (!awaitGone(holder, deadline)) {
                throw new SinkException(context + ": " + dialect.name() + " session " + holder + " of an earlier "
                        + "writer of sink id '" + context.sinkId() + "' subtask " + subtask + " into " + target
                        + " let go of the branch lock but was still on the server " + waitMillis + " ms after this "
                        + "writer took the ownership guard. A branch it prepared is out of reach until the server "
                        + "has ended it: a rollback before then would do nothing and leave the branch prepared, "
                        + "holding its locks, until the server restarts; so recovery waits for it. The task fails "
                        + "and the restarted one waits again. Remedy: if that session stays, end it ("
                        + locks.endSessionSql(holder) + "); or raise claimWait if the server is slow to end "
                        + "sessions.");
            }
        }
        Thread.sleep(ENDING_SESSION_GRACE_MILLIS);
    }

    /**
     * Waits, within claimWait, until session {@code session} has left the server's process list: an
     * epoch session this writer closed right after preparing {@code branch} on it (0: none to wait for,
     * where the dialect keeps its epoch connection or knows no session ids). MariaDB detaches the branch
     * from an ending session before InnoDB lets go of it, and a commit from another session in between
     * commits nothing and loses the branch until the server restarts ({@code MariaDbXaTraits}); the session
     * leaves the process list after that detach, right before InnoDB lets go. So the prepare returns, and
     * the checkpoint that promises the branch can complete and have it committed, only after that.
     */
    void awaitEnded(long session, TransactionId branch) throws SinkException {
        if (session == 0) {
            return;
        }
        SessionLocks locks = sessionLocks.orElseThrow(); // a session id comes from them
        try {
            if (!awaitGone(session, System.currentTimeMillis() + claimWaitMillis)) {
                throw new SinkException(context + ": " + dialect.name() + " session " + session
                        + ", which prepared " + branch + " (checkpoint " + branch.checkpointId() + ", subtask "
                        + branch.subtask() + ") into " + target + " and was closed, was still on the server "
                        + claimWaitMillis + " ms later; a commit of the branch before the server has ended "
                        + "that session could commit nothing and lose the branch until the server restarts. "
                        + "The task fails, and the restarted writer rolls the branch back (no checkpoint "
                        + "promised it). Remedy: if that session stays, end it (" + locks.endSessionSql(session)
                        + "); or raise claimWait if the server is slow to end sessions.");
            }
        } catch (SQLException e) {
            throw new SinkException(
                    context + ": could not ask whether " + dialect.name() + " session " + session + ", which prepared "
                            + branch + ", has ended: " + e.getMessage(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SinkException(
                    context + ": interrupted while waiting for the session that prepared " + branch + " to end", e);
        }
    }

    /**
     * Whether session {@code session} left the server's process list (asked on the guard connection)
     * before {@code deadline}; at once where the dialect knows no session ids.
     */
    private boolean awaitGone(long session, long deadline) throws SQLException, InterruptedException {
        SessionLocks locks = sessionLocks.orElseThrow();
        long sleep = 1;
        while (guardIo.sql("asking whether session " + session + " ended", () -> locks.sessionAlive(guard, session))) {
            if (System.currentTimeMillis() >= deadline) {
                return false;
            }
            Thread.sleep(sleep);
            sleep = Math.min(50, sleep * 2);
        }
        return true;
    }

    /** Releases a claim taken for an adopted subtask index. */
    void release(int subtask) throws SinkException {
        if (sessionLocks.isEmpty()) {
            return;
        }
        SessionLocks locks = sessionLocks.get();
        try {
            guardIo.sql("releasing the ownership guard", () -> {
                locks.releaseGuard(guard, sinkHash, subtask);
                return null;
            });
        } catch (SQLException e) {
            throw new SinkException(context + ": could not release the guard of subtask " + subtask, e);
        }
    }

    /**
     * Fails unless the guard connection is alive. The guard's session holds the ownership locks; if it
     * died (connection cut, server restart), the locks are gone and a second job could take them.
     * Unlike the PostgreSQL writer, whose one connection carries both, the next epoch here would not
     * notice: the writer asks once per epoch.
     */
    void checkAlive() throws SQLException, SinkException {
        if (!guard.isValid(GUARD_CHECK_SECONDS)) {
            throw lost();
        }
    }

    private SinkException lost() {
        return new SinkException(context + ": the guard connection, which holds this subtask's ownership "
                + "guard, was lost; without it a second job with sink id '" + context.sinkId() + "' could "
                + "take over. The task fails and the restarted one claims the guard again.");
    }

    /**
     * Readies {@code c}, a new epoch connection, to carry this writer's branches: takes the branch lock
     * (waiting, within claimWait, for this writer's previous epoch session, which the server may still
     * be ending), then checks that the guard is held by this writer's guard session. The check comes
     * after the lock, so a writer whose guard was taken over never begins a branch that the new owner's
     * recovery, which waited for the branch lock, could miss.
     *
     * @param io bounds the calls on {@code c}
     */
    void lockForBranch(Connection c, XaIo io) throws SQLException, SinkException, InterruptedException {
        if (sessionLocks.isEmpty()) {
            return; // no branch lock to take, no guard to check: the writer warned at start (XaPreflight)
        }
        SessionLocks locks = sessionLocks.get();
        int subtask = context.subtask();
        long deadline = System.currentTimeMillis() + claimWaitMillis;
        long sleep = 1;
        while (!io.sql("taking the branch lock", () -> locks.tryBranchLock(c, sinkHash, subtask))) {
            if (System.currentTimeMillis() >= deadline) {
                long holder =
                        io.sql("reading the branch lock's holder", () -> locks.branchLockHolder(c, sinkHash, subtask));
                throw new SinkException(context + ": " + dialect.name() + " session "
                        + (holder == 0 ? "unknown" : holder)
                        + " still holds the branch lock of sink id '" + context.sinkId() + "' subtask " + subtask
                        + " after " + claimWaitMillis + " ms, so this writer cannot begin its next branch into "
                        + target + ". It is a session of this writer that the server has not ended yet, or "
                        + "of another writer of this subtask. The task fails and the restarted one waits for it. "
                        + "Remedy: if no live job owns that session, end it"
                        + (holder == 0 ? "" : " (" + locks.endSessionSql(holder) + ")") + ".");
            }
            Thread.sleep(sleep);
            sleep = Math.min(50, sleep * 2);
        }
        {
            long holder = io.sql("checking the ownership guard", () -> locks.guardHolder(c, sinkHash, subtask));
            if (holder != guardSession) {
                throw new SinkException(lost().getMessage() + " (" + dialect.name() + " session "
                        + (holder == 0 ? "none" : holder) + " holds it, not this writer's guard session "
                        + guardSession + "; no branch was begun.)");
            }
        }
    }
}
