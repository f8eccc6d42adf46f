/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import dev.eosink.core.TransactionId;

import org.apache.flink.annotation.Internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The refused records of one epoch on their way into a sink's optional dead-letter table: records the
 * database refused (or the row mapper could not turn into a row), with the database's error, written
 * in the epoch's own transaction just before its marker row. They commit with the rest of the epoch
 * or not at all, so each refused record is kept exactly once, as the accepted ones are: a replayed
 * epoch refuses and keeps them again in the new transaction, the rolled-back one took its own along.
 * Every database's sink (PostgreSQL's, XA's) shares it; the table's DDL is the database's own.
 *
 * <p>Refused records of an epoch wait in memory until the epoch is prepared (only then is the
 * transaction's name known for certain), each as a short rendering and the error. More than {@link
 * #MAX_PER_EPOCH} in one epoch is no longer "a few bad records" but a broken job (a wrong column, a
 * changed schema): the epoch fails instead of moving the stream into this table.
 *
 * <p>Columns: gid, sink_id, subtask, checkpoint_id, position, record, sqlstate, error (and created_at,
 * the table's default).
 */
@Internal
public class DeadLetterBuffer {

    /** Refused records one epoch may keep; one more fails the epoch. */
    public static final int MAX_PER_EPOCH = 10_000;

    private final String insertSql;
    private final List<Object[]> pending = new ArrayList<>();

    /** The columns a kept record is written to, in the order of the insert's parameters. */
    public static final List<String> COLUMNS =
            List.of("gid", "sink_id", "subtask", "checkpoint_id", "position", "record", "sqlstate", "error");

    /**
     * @param insertSql the dialect's insert of one row of {@link #COLUMNS} into the dead-letter table (quoted:
     *     {@code sqlstate} is a reserved word on MariaDB)
     */
    public DeadLetterBuffer(String insertSql) {
        this.insertSql = insertSql;
    }

    /** Keeps a refused record of the open epoch; false when the epoch has already kept the most it may. */
    public boolean add(long position, String rendering, String sqlState, String error) {
        if (pending.size() >= MAX_PER_EPOCH) {
            return false;
        }
        pending.add(new Object[] {position, rendering, sqlState, error});
        return true;
    }

    public int size() {
        return pending.size();
    }

    /** Forgets the open epoch's refused records (its transaction is rolled back, or begins anew). */
    public void clear() {
        pending.clear();
    }

    /** Writes the epoch's refused records into its transaction, named {@code id}, and forgets them. */
    public void write(Connection c, TransactionId id) throws SQLException {
        if (size() == 0) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement(insertSql)) {
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
