/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;

/**
 * Turns a record into the values of one row, in the order of the columns given to the builder.
 * Values are bound as {@code PreparedStatement.setObject} binds them, so any type the driver maps works
 * (Long, String, BigDecimal, java.time types, byte[], ...). A null is a SQL NULL.
 */
@PublicEvolving
@FunctionalInterface
public interface RowMapper<IN> extends Serializable {
    /**
     * The values of {@code record}'s row, one per column of the sink's {@code columns}, in that order, as JDBC {@code
     * setObject} takes them (null for SQL NULL). A record whose mapping throws is refused as the database's refusals
     * are ({@link RefusedRecords}): it fails the epoch, or goes to the dead-letter table of a sink that has one.
     */
    Object[] toRow(IN record) throws Exception;

    /**
     * The record as error messages and the dead-letter table show it (its {@code toString}, cut
     * short): by default the record itself. A mapper of records whose {@code toString} says nothing
     * of their values (Flink's {@code BinaryRowData}) returns a readable form. Must not throw.
     */
    default Object shown(IN record) {
        return record;
    }
}
