package dev.eosink.postgres.internal;

import dev.eosink.core.TransactionId;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The optional dead-letter table: records the database refused (or the row mapper could not turn
 * into a row), with the database's error, written in the epoch's own transaction just before its
 * marker row. They commit with the rest of the epoch or not at all, so each rejected record is kept
 * exactly once, as the accepted ones are: a replayed epoch rejects and keeps them again in the new
 * transaction, the rolled-back one took its own along.
 *
 * <p>Rejected records of an epoch wait in memory until PREPARE (only then is the transaction's name
 * known), each as a short rendering and the error. More than {@link #MAX_PER_EPOCH} in one epoch is
 * no longer "a few bad records" but a broken job (a wrong column, a changed schema): the epoch fails
 * instead of moving the stream into this table.
 */
final class DeadLetters {

    /** Rejected records one epoch may keep; one more fails the epoch. */
    static final int MAX_PER_EPOCH = 10_000;

    private final SqlIdentifier table;
    private final List<Object[]> pending = new ArrayList<>();

    DeadLetters(SqlIdentifier table) {
        this.table = table;
    }

    SqlIdentifier table() {
        return table;
    }

    /** The table, created by the sink when missing and allowed to (as the marker table). */
    static String createSql(SqlIdentifier table) {
        return "CREATE TABLE IF NOT EXISTS " + table.sql()
                + " (gid text NOT NULL, sink_id text NOT NULL, subtask integer NOT NULL, checkpoint_id bigint NOT NULL,"
                + " position bigint NOT NULL, record text NOT NULL, sqlstate text, error text NOT NULL,"
                + " created_at timestamptz NOT NULL DEFAULT now())";
    }

    /** Keeps a rejected record of the open epoch; false when the epoch has already kept the most it may. */
    boolean add(long position, String rendering, String sqlState, String error) {
        if (pending.size() >= MAX_PER_EPOCH) {
            return false;
        }
        pending.add(new Object[] {position, rendering, sqlState, error});
        return true;
    }

    int size() {
        return pending.size();
    }

    /** Forgets the open epoch's rejected records (its transaction is rolled back, or begins anew). */
    void clear() {
        pending.clear();
    }

    /** Writes the epoch's rejected records into its transaction, named {@code id}, and forgets them. */
    void write(Connection c, TransactionId id) throws SQLException {
        if (size() == 0) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table.sql()
                + " (gid, sink_id, subtask, checkpoint_id, position, record, sqlstate, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (Object[] letter : pending) {
                s.setString(1, id.toString());
                s.setString(2, id.sinkId());
                s.setInt(3, id.subtask());
                s.setLong(4, id.checkpointId());
                s.setLong(5, (Long) letter[0]);
                s.setString(6, (String) letter[1]);
                s.setString(7, (String) letter[2]);
                s.setString(8, (String) letter[3]);
                s.addBatch();
            }
            s.executeBatch();
        }
        pending.clear();
    }
}
