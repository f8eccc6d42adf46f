/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import org.apache.flink.annotation.PublicEvolving;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * How a database's errors sort, for the decisions that depend on them: a record the database refuses for its data
 * (kept in a dead-letter table, never retried), a lock wait that ran into the lock timeout (named in the message
 * with who holds the lock), a missing table (named with its DDL). The defaults read the SQLSTATE classes of the
 * SQL standard.
 */
@PublicEvolving
public interface ErrorKinds {

    /**
     * Whether the database refused a statement for its record's data (a NULL in a NOT NULL column, a constraint, a
     * value too long or of the wrong type) rather than for anything else (a lost connection, a lock timeout, a
     * missing privilege), which fails the epoch.
     */
    default boolean rejectsRecord(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("22") || state.startsWith("23") || state.equals("42804");
    }

    /** Whether {@code e} (or an exception it carries) reports a lock wait that ran into the lock timeout. */
    default boolean isLockTimeout(SQLException e) {
        return false;
    }

    /** Whether {@code e} says that a table does not exist (SQLSTATE 42P01, 42S02). */
    default boolean isMissingTable(SQLException e) {
        return chain(e).stream().anyMatch(x -> "42P01".equals(x.getSQLState()) || "42S02".equals(x.getSQLState()));
    }

    /** {@code e}, its causes and its chained exceptions (at most 20), for codes a driver may wrap. */
    static List<SQLException> chain(SQLException e) {
        List<SQLException> all = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Throwable> todo = new ArrayDeque<>(List.of(e));
        while (!todo.isEmpty() && all.size() < 20) {
            Throwable t = todo.pop();
            if (!seen.add(t)) {
                continue;
            }
            if (t instanceof SQLException sql) {
                all.add(sql);
                if (sql.getNextException() != null) {
                    todo.add(sql.getNextException());
                }
            }
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
        }
        return all;
    }
}
