/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One transactional resource, and the sink that writes to it, as the resource-neutral hard cases
 * ({@link ResourceHardCases}) see them: how to build the sink, what the resource shows of the sink's
 * transactions and of what it committed, and what an operator can do to them. A database or anything
 * else the core's SPI runs on (a directory of files); the JDBC part, for the cases about connections
 * and SQL, is {@link HardCaseBackend}.
 *
 * <p>The sink writes each id of the test's stream once into a <em>target</em> (a table, a directory),
 * which the backend creates and drops; what the target holds is asked as the ids it holds and how
 * many times each ({@link #idCounts}), from which the suite counts rows, duplicates and missing ids.
 *
 * <p>Contract for every implementation:
 *
 * <ul>
 *   <li>Prepared transactions are named by the sink's {@link TransactionId}, whatever the resource
 *       calls them (a gid, an XA branch, a file name): {@link #prepared} returns exactly the sink's
 *       own, parsed, and never another sink's.
 *   <li>{@link #committed} is what the sink's markers prove committed (a marker row, a committed
 *       file): the suite tells committed from rolled-back transactions by it alone.
 *   <li>Every method may be called from a Flink task (a fault's action) as well as from the test.
 * </ul>
 */
public interface ResourceBackend {

    /** How the backend shows in assertion messages: "PostgreSQL", "MariaDB (XA)", "files". */
    String name();

    /**
     * The sink under test as {@code spec} says: it writes each id of its input once into the target
     * {@link SinkSpec#table()}, under {@link SinkSpec#sinkId()}. Options that do not apply to the
     * resource (a JDBC URL, a batch size) are ignored.
     */
    ExactlyOnceSink<Long> sink(SinkSpec spec);

    /**
     * The backend's sink as {@link #sink}, inserting by JDBC batches, where its default path differs
     * (PostgreSQL's is COPY): the explorer's insert-by-batch mode. None by default.
     */
    default Optional<ExactlyOnceSink<Long>> batchSink(SinkSpec spec) {
        return Optional.empty();
    }

    /**
     * The backend's sink as a changelog by key, if it has upserts: the explorer's changelog mode. None by
     * default.
     */
    default Optional<KeyedResource> keyed() {
        return Optional.empty();
    }

    /**
     * What the backend's database lacks of what some cases assume, each with the reason (the database's nature,
     * never a shortcoming of the test). Every case runs on every backend: one that meets a capability the backend
     * lacks ({@link #lacks}) asserts what the database documents instead. Empty (the default): it lacks none.
     */
    default Map<Capability, String> lacking() {
        return Map.of();
    }

    /** Whether the database lacks {@code capability} ({@link #lacking}). */
    default boolean lacks(Capability capability) {
        return lacking().containsKey(capability);
    }

    /** Creates an empty target: a table {@code (id, payload)}, a directory, ... */
    void createTarget(String target);

    /** Drops a target made by {@link #createTarget}, whatever it holds. */
    void dropTarget(String target);

    /** The sink's prepared transactions, as the resource lists them. */
    List<TransactionId> prepared(String sinkId);

    /**
     * Leaves a prepared transaction named {@code id} holding ids {@code from..to-1} in {@code target},
     * with its marker, as a run that died right after it prepared would.
     */
    void stagePrepared(String target, TransactionId id, long from, long to) throws Exception;

    /** Commits one prepared transaction by hand, as an operator might. */
    void commitPrepared(TransactionId id) throws Exception;

    /** Rolls back one prepared transaction by hand, as an operator might; fails if it is not prepared. */
    void rollbackPrepared(TransactionId id) throws Exception;

    /** Rolls back every prepared transaction of the sink: cleanup after a test, whatever happened. */
    default void rollbackAllPrepared(String sinkId) {
        for (TransactionId id : prepared(sinkId)) {
            try {
                rollbackPrepared(id);
            } catch (Exception finishedMeanwhile) {
                // committed or rolled back by the job since it was listed: nothing left to clean
            }
        }
    }

    /** What {@code target} holds, committed and visible: id -> how many times. */
    Map<Long, Long> idCounts(String target);

    /** How many records {@code target} holds, committed and visible. */
    default long rows(String target) {
        return idCounts(target).values().stream().mapToLong(Long::longValue).sum();
    }

    /** The sink's transactions its markers prove committed, with the rows each wrote. */
    Map<TransactionId, Long> committed(String sinkId);

    /**
     * The sink's sessions that still hold something of the resource (a connection, a lock): 0 once
     * every writer and committer of a cancelled job has gone.
     */
    long openSessions(String sinkId);

    /**
     * How the sink names the holder of the ownership guard of {@code subtask}, both in its log while it
     * waits for the guard and in its refusal once it gave up: text that must appear in both.
     */
    String guardHolder(String sinkId, int subtask);
}
