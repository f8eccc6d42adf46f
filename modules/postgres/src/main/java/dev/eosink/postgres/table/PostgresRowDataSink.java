/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.PostgresSink;
import dev.eosink.postgres.PostgresSinkBuilder;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The exactly-once PostgreSQL sink for Flink's {@link RowData}, as the Table API and SQL hand rows to
 * a sink: each field is written straight into binary COPY or into the statements' parameters, with
 * no {@code Object[]} per record and no boxing of its primitives.
 *
 * <pre>{@code
 * PostgresRowDataSink.builder(rowType)          // the columns: rowType's field names, in order
 *     .jdbcUrl("jdbc:postgresql://db:5432/shop").username("flink").password(secret)
 *     .sinkId("orders")
 *     .table("public", "orders")
 *     .upsert("id")                             // with a primary key; without it, every row is inserted
 *     .build();
 * }</pre>
 *
 * <p>The builder is {@link PostgresSink#builder()}'s, with {@code columns(...)} set to the row type's
 * field names and the records' rows set: every other option applies as documented there, {@code
 * upsert(...)} included. With {@code upsert(...)}, each row's {@link org.apache.flink.types.RowKind}
 * says what it does (DELETE and UPDATE_BEFORE delete its key, the others upsert, the last row of a
 * key wins: {@link dev.eosink.postgres.RowKindFunction}), unless {@code changelog(...)} says
 * otherwise; without it, every row is inserted whatever its kind, so give the sink insert-only rows.
 * Give {@code columns(...)} again only to rename, with one column per field in the same order; {@code
 * rows(...)} would replace the RowData writing with a row mapper.
 *
 * <p>Which Flink type goes into which PostgreSQL column type is in docs/types.md. The row type is
 * checked when the builder is made (a type that goes into no column, such as MAP, is refused), and at
 * each writer's start against the table: every column must exist and take its field's type as it is
 * (no rounding, no overflow), or the writer refuses to start before anything is written, naming every
 * column that does not fit, both types and the remedy.
 *
 * <p>{@code flink-table-common} is not a dependency of this artifact: a job using this class has it
 * (the Table API brings it; for a DataStream of RowData, add it).
 */
@PublicEvolving
public final class PostgresRowDataSink {

    private PostgresRowDataSink() {}

    /**
     * A builder for a sink of {@code rowType}'s rows into the columns of its field names.
     *
     * @throws IllegalArgumentException when a field's type goes into no PostgreSQL column type
     */
    public static PostgresSinkBuilder<RowData> builder(RowType rowType) {
        RowDataRows rows = new RowDataRows(rowType);
        return PostgresSink.<RowData>builder()
                .columns(rowType.getFieldNames().toArray(new String[0]))
                .rowFormat(rows);
    }
}
