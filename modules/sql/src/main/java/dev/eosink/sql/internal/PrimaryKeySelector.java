/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.jdbc.sql.UpsertKeys;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

import java.util.Arrays;

/**
 * What the sink's input is partitioned by, so that one writer subtask owns each primary key: a hash of
 * the key's values that depends on those values alone. The key is only ever used to pick the subtask,
 * and a hash is all that takes: equal keys get equal hashes.
 *
 * <p>Why not the key's fields as a row: {@code GenericRowData.hashCode} mixes in its {@code RowKind}'s
 * identity hash, which differs from JVM to JVM. On a cluster of several task managers the upstream
 * subtasks would each send a key to a different writer: two open transactions writing the same key,
 * each waiting for the other's row lock, and the order of a key's changes lost between them.
 *
 * <p>Values hash by content: strings by their form for distribution ({@link UpsertKeys#folded}:
 * without trailing spaces, case-folded, accents removed, so that the spellings a {@code citext} key,
 * a case- or accent-insensitive collation (MariaDB's default {@code _ci} ones) or a PAD SPACE one
 * takes as one key reach one writer, as the DataStream sinks' own distribution does; two writers
 * would each lock that row in their own transaction and wait for each other's commit until the lock
 * timeout), decimals and timestamps by their own content hashes, byte arrays by {@link
 * Arrays#hashCode(byte[])}, and a floating-point zero as {@code +0.0} (PostgreSQL finds {@code -0.0}
 * equal to it).
 */
@Internal
public final class PrimaryKeySelector implements KeySelector<RowData, Integer> {

    private static final long serialVersionUID = 2L;

    private final RowData.FieldGetter[] getters;

    /**
     * @param rowType the rows' type
     * @param keyIndexes the key's fields' positions in the row
     */
    public PrimaryKeySelector(RowType rowType, int[] keyIndexes) {
        this.getters = new RowData.FieldGetter[keyIndexes.length];
        for (int k = 0; k < keyIndexes.length; k++) {
            getters[k] = RowData.createFieldGetter(rowType.getTypeAt(keyIndexes[k]), keyIndexes[k]);
        }
    }

    @Override
    public Integer getKey(RowData row) {
        int hash = 1;
        for (RowData.FieldGetter getter : getters) {
            hash = 31 * hash + hashOf(getter.getFieldOrNull(row));
        }
        return hash;
    }

    private static int hashOf(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof StringData) {
            return UpsertKeys.folded(value.toString()).hashCode();
        }
        if (value instanceof byte[]) {
            return Arrays.hashCode((byte[]) value);
        }
        if (value instanceof Double && (Double) value == 0.0d) {
            return Double.hashCode(0.0d);
        }
        if (value instanceof Float && (Float) value == 0.0f) {
            return Float.hashCode(0.0f);
        }
        return value.hashCode();
    }
}
