/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.stream.IntStream;

/**
 * What the tool needs of one kind of database, and nothing else: its prepared transactions of eosink,
 * the marker rows, the sink's ownership guard, and finishing a prepared transaction. One
 * implementation per way a sink prepares: PostgreSQL's own two-phase commit ({@link
 * PostgresAdminDatabase}), and XA branches ({@link XaAdminDatabase}, MariaDB today; another XA
 * database needs its guard check and marker SQL).
 */
interface AdminDatabase extends AutoCloseable {

    /**
     * One prepared transaction of an eosink sink.
     *
     * @param id its name
     * @param preparedAt when it was prepared, where the database keeps that
     * @param database where it lives (PostgreSQL's database; "server" for MariaDB, whose XA is server-wide)
     * @param handle what the database needs to finish it (PostgreSQL's gid, an XA {@code Xid})
     */
    record Prepared(TransactionId id, Optional<Instant> preparedAt, String database, Object handle) {

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Prepared other
                            && id.equals(other.id)
                            && preparedAt.equals(other.preparedAt)
                            && database.equals(other.database);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(id, preparedAt, database);
        }

        @Override
        public String toString() {
            return "Prepared[" + id + " in " + database + "]";
        }
    }

    /** The marker rows of one sink id. */
    record Markers(
            String sinkId, long count, long oldestCheckpoint, long newestCheckpoint, Instant oldest, Instant newest) {

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Markers other
                            && sinkId.equals(other.sinkId)
                            && count == other.count
                            && oldestCheckpoint == other.oldestCheckpoint
                            && newestCheckpoint == other.newestCheckpoint
                            && oldest.equals(other.oldest)
                            && newest.equals(other.newest);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(sinkId, count, oldestCheckpoint, newestCheckpoint, oldest, newest);
        }

        @Override
        public String toString() {
            return "Markers[" + sinkId + ": " + count + "]";
        }
    }

    /**
     * A notice of writes carried past a barrier ({@link dev.eosink.jdbc.sql.CarriedNotices}), visible once the
     * transaction that recorded it committed.
     *
     * @param notice the carrying transaction and how many writes it carried
     * @param at the notice row's {@code created_at}
     */
    record Notice(CarriedNotice notice, Instant at) {

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof Notice other && notice.equals(other.notice) && at.equals(other.at);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(notice, at);
        }

        @Override
        public String toString() {
            return "Notice[" + notice + " at " + at + "]";
        }
    }

    /** "PostgreSQL 17.6 at jdbc:postgresql://host:5432/db": what and where, never a password. */
    String describe();

    /** How the age of a prepared transaction is known here, for the listing. */
    String ageSource();

    /** The prepared transactions of sink {@code sinkId}, or of every eosink sink when it is empty. */
    List<Prepared> prepared(Optional<String> sinkId) throws AdminException;

    /** Prepared transactions that look like eosink's but whose sink id cannot be read off (shortened XA qualifiers). */
    default List<String> unreadable() throws AdminException {
        return List.of();
    }

    /** The marker rows per sink id; fails with the remedy when the marker table is missing. */
    List<Markers> markers(Optional<String> sinkId) throws AdminException;

    /** The row count of {@code id}'s marker row, present exactly when {@code id} committed. */
    OptionalLong marker(TransactionId id) throws AdminException;

    /**
     * The sink's transactions committed after a checkpoint was taken: marker rows whose transaction began
     * after {@code sinceEpochMillis}, named after checkpoint {@code checkpointId} or, when {@code takenBy} is
     * the execution tag of the writers that took it, by another execution at any checkpoint, as "N
     * transaction(s) (R rows) of checkpoints A to B"; empty when there are none. Such commits mean that a
     * later checkpoint of the same job completed, or that another run of the sink id (a fresh start) wrote.
     */
    Optional<String> committedAfter(String sinkId, long checkpointId, long sinceEpochMillis, Optional<String> takenBy)
            throws AdminException;

    /**
     * Who holds an ownership guard of {@code sinkId}, one line each: non-empty while a job with that
     * sink id is alive.
     *
     * @param subtasks how many subtask indices to look at, where the database must be asked per index
     */
    List<String> guardHolders(String sinkId, int subtasks) throws AdminException;

    /**
     * {@link #guardHolders} on every subtask index up to the largest in {@code seen} (the indices the
     * snapshot and the database show), and on at least {@value #GUARD_SUBTASKS_AT_LEAST}: a live job may
     * run at a higher parallelism than anything shows.
     */
    default List<String> guardHoldersUpTo(String sinkId, IntStream seen) throws AdminException {
        return guardHolders(
                sinkId, Math.max(GUARD_SUBTASKS_AT_LEAST, 1 + seen.max().orElse(0)));
    }

    /** Subtask indices whose guard is looked at where the database is asked per index (MariaDB), at least. */
    int GUARD_SUBTASKS_AT_LEAST = 256;

    /** The visible notices of writes carried past a barrier by sink {@code sinkId}'s writers, by subtask and checkpoint. */
    List<Notice> notices(String sinkId) throws AdminException;

    /** How the sinks that prepare this way keep carried writes: what {@link #writeCarried} binds. */
    CarriedWrites.Encoding carriedEncoding();

    /** {@code table} as this database's SQL names it (quoted). */
    String tableSql(SqlIdentifier table);

    /**
     * Writes carried writes into {@code table} and deletes the notices of their subtasks, in one transaction
     * ({@link CarriedWriting}); nothing is committed unless all of it is, and exactly {@code notices} notices go.
     *
     * @param writes by subtask, each written in its order
     */
    CarriedWriting.Written writeCarried(
            SqlIdentifier table, String sinkId, SortedMap<Integer, CarriedWrites> writes, int notices)
            throws AdminException;

    void commit(Prepared tx) throws AdminException;

    void rollback(Prepared tx) throws AdminException;

    @Override
    void close();
}
