/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.row.TargetColumn;

/** Target columns as the preflight reads them from the catalog, for tests without a server. */
final class Columns {

    private Columns() {}

    /** A column of a scalar type, with the modifier the server would report for {@code declared}. */
    static TargetColumn scalar(String name, String typeName, String declared, int typmod) {
        int length = (typeName.equals("varchar") || typeName.equals("bpchar")) && typmod >= 4 ? typmod - 4 : -1;
        char category = typeName.startsWith("int") || typeName.startsWith("float") || typeName.equals("numeric")
                ? 'N'
                : typeName.equals("mood") ? 'E' : 'U';
        return TargetColumn.of(
                name,
                TargetColumn.PgType.scalar(typeName, category),
                new TargetColumn.Declaration(declared, typeName, typmod, length));
    }

    static TargetColumn scalar(String name, String typeName) {
        return scalar(name, typeName, typeName, -1);
    }

    /** An array column of {@code element}, oid {@code oid}. */
    static TargetColumn array(String name, String element, int oid, String declared, int typmod) {
        return TargetColumn.of(
                name,
                new TargetColumn.PgType("_" + element, 'A', element, oid, 'N'),
                new TargetColumn.Declaration(declared, declared, typmod, -1));
    }

    /** numeric(p, s)'s modifier. */
    static int numeric(int precision, int scale) {
        return ((precision << 16) | (scale & 0x7ff)) + 4;
    }
}
