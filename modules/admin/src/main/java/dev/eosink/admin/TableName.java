/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.jdbc.sql.SqlIdentifier;

/** A table's name as an option gives it: {@code table} or {@code schema.table}. */
final class TableName {

    /** The sink's marker table unless {@code --marker-table} names another (the sink's {@code markerTable}). */
    static final String DEFAULT_MARKER_TABLE = "eosink_markers";

    private TableName() {}

    /** {@code --marker-table}, or the default. */
    static SqlIdentifier markerTable(String given) throws AdminException {
        return parse(given == null ? DEFAULT_MARKER_TABLE : given, "--marker-table");
    }

    /** {@code given} as {@code option} gave it: {@code table} or {@code schema.table}. */
    static SqlIdentifier parse(String given, String option) throws AdminException {
        int dot = given.indexOf('.');
        try {
            return dot < 0
                    ? new SqlIdentifier(null, given)
                    : new SqlIdentifier(given.substring(0, dot), given.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw new AdminException(AdminException.USAGE, option + " " + given + ": " + e.getMessage());
        }
    }
}
