package dev.eosink.admin;

import dev.eosink.jdbc.sql.SqlIdentifier;

/** The marker table's name as {@code --marker-table} gives it: {@code table} or {@code schema.table}. */
final class MarkerTableName {

    static final String DEFAULT = "eosink_markers";

    private MarkerTableName() {}

    static SqlIdentifier parse(String given) throws AdminException {
        String name = given == null ? DEFAULT : given;
        int dot = name.indexOf('.');
        try {
            return dot < 0 ? new SqlIdentifier(null, name) : new SqlIdentifier(name.substring(0, dot), name.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw new AdminException(AdminException.USAGE, "--marker-table " + given + ": " + e.getMessage());
        }
    }
}
