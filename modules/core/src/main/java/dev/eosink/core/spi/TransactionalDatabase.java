/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.UserCodeClassLoader;

import java.io.IOException;
import java.io.Serializable;

/**
 * The resource contract of the protocol: everything that differs between PostgreSQL's native
 * {@code PREPARE TRANSACTION}, a {@code javax.sql.XADataSource}, or a resource that is no database at
 * all (a directory whose files are moved from pending to committed: {@code dev.eosink.examples.files}).
 * The protocol itself (naming, which transactions to roll back at start, when to commit, how to
 * classify a commit's outcome) lives in {@code dev.eosink.core.protocol} and does not change per
 * resource. "Database" here means whatever transactional system the sink writes to; the package
 * documentation says what each term means for one that is not a database.
 *
 * <p>Implementations are serializable configuration, shipped with the job graph; they open
 * sessions on the task managers. They must never render credentials in {@code toString()}. A job
 * builds its sink with {@link dev.eosink.core.ExactlyOnceSink#ExactlyOnceSink(TransactionalDatabase,
 * dev.eosink.core.SinkSettings)}.
 *
 * @param <IN> the records the sink writes
 */
@PublicEvolving
public interface TransactionalDatabase<IN> extends Serializable {

    /**
     * Opens the session of one writer subtask. Before it returns, it has checked what it can of the
     * resource (a server's settings and the role's privileges, a directory it can write):
     * misconfiguration must be found at job start, not at the first checkpoint. The writer's recovery
     * then claims the subtask's {@link Recovery#claim ownership guard}, before anything else.
     */
    WriterSession<IN> openWriter(SubtaskContext context) throws IOException;

    /** Opens the session of one committer subtask. */
    CommitSession openCommitter(SubtaskContext context) throws IOException;

    /**
     * Registers, on a TaskManager, what must be undone when Flink releases the job's user-code class
     * loader there (after the job's last task on that TaskManager ended, just before Flink closes the
     * class loader). Register each hook by a fixed name with {@link
     * UserCodeClassLoader#registerReleaseHookIfAbsent}: this is called by every writer subtask and every
     * committer subtask (unchained, a committer may run on a TaskManager where no writer of its job does),
     * and several sinks of a job share one class loader.
     *
     * <p>Why: on a session cluster every job gets a class loader of its own on each TaskManager, and a
     * long-lived JVM-wide registry that still refers to one of its classes keeps that class loader, and
     * every class of the job, in memory for as long as the TaskManager runs. For a JDBC database that
     * registry is {@code java.sql.DriverManager}, where a driver registers itself as soon as its class
     * is loaded. It is called before the committer or the writer open anything. The default registers
     * nothing.
     */
    default void registerReleaseHooks(UserCodeClassLoader userCode) {}

    /** What the sink writes to, for messages: "table \"public\".\"orders\"", "directory /data/orders". Never credentials. */
    String target();

    /**
     * How the protocol's messages speak of this resource's transactions (a missing proof of commit,
     * resolving by hand, what a prepared transaction holds). The default, {@link Wording#NEUTRAL},
     * names no mechanism; a resource says what an operator of it would look for.
     */
    default Wording wording() {
        return Wording.NEUTRAL;
    }
}
