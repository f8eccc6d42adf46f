/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import dev.eosink.jdbc.sql.SqlIdentifier;

/**
 * Create-if-missing for Firebird 3, which has no {@code IF NOT EXISTS}: PSQL for an {@code EXECUTE BLOCK}. Statements
 * end in {@code ";\n"}, never {@code "; "}, which some callers take for a separator of statements.
 */
final class DdlBlock {

    private DdlBlock() {}

    /**
     * Runs {@code ddl} in an autonomous transaction (committed at once, visible to the next statement of the block)
     * unless {@code systemTable} has a row whose {@code nameColumn} is {@code name}; a failure is raised again only if
     * the object is still missing afterwards (another session that created it meanwhile is no failure).
     */
    static String ifMissing(String systemTable, String nameColumn, String name, String ddl) {
        String missing = "NOT EXISTS (SELECT 1 FROM " + systemTable + " WHERE " + nameColumn + " = "
                + SqlIdentifier.literal(name) + ")";
        return "IF (" + missing + ") THEN\nBEGIN\nIN AUTONOMOUS TRANSACTION DO EXECUTE STATEMENT "
                + SqlIdentifier.literal(ddl) + ";\nWHEN ANY DO\nBEGIN\nIF (" + missing
                + ") THEN EXCEPTION;\nEND\nEND\n";
    }
}
