/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.testing.records.UpsertRecords.KeyFunction;
import dev.eosink.testing.records.UpsertRecords.KindFunction;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The role of a {@link ResourceBackend} whose sink can also write a changelog by key: upserts, and deletes
 * by DELETE and by UPDATE_BEFORE, the last record of a key winning. A backend that has it offers it by
 * {@link ResourceBackend#keyed()}; one that has no upserts (the file sink, XA on PostgreSQL) does not.
 *
 * <p>The keyed target is a table {@code (k, v)} with a unique key on {@code k}; record {@code i} of the
 * sink's input is the row {@code (key.of(i), i)} of kind {@code kind.of(i)}.
 */
public interface KeyedResource {

    /** How a changelog sink writes its rows. */
    enum Method {
        /** Statements of {@link SinkSpec#batchSize()} keys: upserts, deletes. */
        STATEMENTS,
        /** Rows streamed by COPY (new keys straight into the table, the rest through a stage), deletes by statement. */
        COPY
    }

    /** The methods {@link #changelogSink} takes on this backend: statements everywhere, COPY where it has it. */
    default Set<Method> methods() {
        return EnumSet.of(Method.STATEMENTS);
    }

    /**
     * The sink of {@code spec} in upsert mode, with a changelog, writing by {@code method} (one of {@link
     * #methods()}): it partitions its input by key itself and writes record {@code i} as {@code (key.of(i), i)}
     * of kind {@code kind.of(i)} into the keyed target {@link SinkSpec#table()}, under {@link SinkSpec#sinkId()}.
     */
    ExactlyOnceSink<Long> changelogSink(SinkSpec spec, KeyFunction key, KindFunction kind, Method method);

    /** Creates an empty keyed target: {@code (k, v)}, a unique key on {@code k}, that the sink may change. */
    void createKeyedTarget(String target);

    /** A connection to the database the keyed target is in, as a reader that sees committed rows. */
    Connection connect() throws SQLException;

    /** The backend's name, for messages. */
    String name();

    /** What the keyed target holds, committed and visible: key -> value. Dropped as any target. */
    default Map<Long, Long> rowsByKey(String target) {
        Map<Long, Long> rows = new HashMap<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + target)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getLong(2));
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("failed on " + name() + ": the rows of " + target, e);
        }
    }
}
