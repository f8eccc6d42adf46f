/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.route;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;

/**
 * Turns a record into the changes it makes to the sink's tables. One record may change any number of
 * tables (a whole source transaction is one record): every change of a record lands in the same
 * database transaction, so a reader never sees part of a record. Shipped with the job: serializable.
 *
 * @param <IN> the records the sink writes
 */
@PublicEvolving
@FunctionalInterface
public interface TableRoute<IN> extends Serializable {

    /**
     * Emits the record's changes into {@code out}, in the order they happened. A change of a key replaces
     * what an earlier one of the same key (in this record or an earlier one) left, so only each key's last
     * change reaches the table. Whatever this throws fails the record, naming it.
     */
    void route(IN record, TableChanges out) throws Exception;

    /**
     * The record as error messages show it (its {@code toString}, cut short): by default the record itself.
     * Must not throw.
     */
    default Object shown(IN record) {
        return record;
    }
}
