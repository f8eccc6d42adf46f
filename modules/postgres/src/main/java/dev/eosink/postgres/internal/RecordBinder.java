/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.InsertStatement;

import java.sql.PreparedStatement;

/**
 * How {@link BatchPath} binds a record into its statement, keeps it for a message or to send it again,
 * and shows it: a table's rows ({@link TableRows}), or the user's statement and binder ({@link
 * #of(InsertStatement.UserSql)}).
 */
interface RecordBinder<IN> {

    /** Binds the record to the statement's parameters. */
    void bind(PreparedStatement statement, IN record) throws Exception;

    /** The record, kept past the write as it is now (see {@link dev.eosink.postgres.row.RowFormat#retain}). */
    IN retain(IN record);

    /** The record as messages and the dead-letter table show it. */
    Object shown(IN record);

    /** The user's binder, whose records are kept and shown as they are. */
    static <IN> RecordBinder<IN> of(InsertStatement.UserSql<IN> statement) {
        return new RecordBinder<>() {
            @Override
            public void bind(PreparedStatement s, IN record) throws Exception {
                statement.bind(s, record);
            }

            @Override
            public IN retain(IN record) {
                return record;
            }

            @Override
            public Object shown(IN record) {
                return record;
            }
        };
    }
}
