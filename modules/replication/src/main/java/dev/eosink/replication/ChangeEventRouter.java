/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.JsonScalar;
import dev.eosink.cdc.Row;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.TableChanges;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Turns one change event into the upsert or delete of its replica table: an insert, a snapshot read or an update
 * upserts the row after the change (every target column's value, by name); a delete deletes the event's key.
 * Values of events with their schema go as they are; values of events without it are converted to their target
 * column's type ({@link SchemalessValues}).
 *
 * <p>Refused, naming the table, the column and the remedy: a change of a table that is not replicated; a target
 * column the event does not have; a TRUNCATE (routed tables take upserts and deletes only); and Debezium's
 * placeholder for a TOASTed value an update left unchanged (without {@code REPLICA IDENTITY FULL} at the source
 * an update does not carry it), which written as it is would overwrite the value with the placeholder's text.
 */
@PublicEvolving
public final class ChangeEventRouter implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Debezium's default {@code unavailable.value.placeholder}. */
    public static final String UNAVAILABLE = "__debezium_unavailable_value";

    private static final byte[] UNAVAILABLE_BYTES = UNAVAILABLE.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static final String UNAVAILABLE_BASE64 =
            java.util.Base64.getEncoder().encodeToString(UNAVAILABLE_BYTES);

    private final ReplicaTables tables;
    private final SchemalessValues schemaless;

    /** Events with their schema, or without it with values converted as {@code schemaless} says. */
    public ChangeEventRouter(ReplicaTables tables, SchemalessValues schemaless) {
        this.tables = Objects.requireNonNull(tables, "tables");
        this.schemaless = Objects.requireNonNull(schemaless, "schemaless");
    }

    public ReplicaTables tables() {
        return tables;
    }

    /** Emits the event's change into {@code out}. */
    public void route(ChangeEvent event, TableChanges out) {
        String source = event.table().dataCollection();
        ReplicaTable replica = tables.forSource(source)
                .orElseThrow(() -> new IllegalArgumentException("a change of source table " + source
                        + ", which this replication does not declare (it replicates "
                        + tables.tables().stream().map(ReplicaTable::source).collect(Collectors.toList())
                        + "). Remedy: add the table, or leave its topic out"));
        RoutedTable target = replica.target();
        switch (event.kind()) {
            case INSERT:
            case SNAPSHOT_READ:
            case UPDATE:
                out.upsert(
                        target.name(),
                        values(event, replica, target.columns(), event.after().orElseThrow()));
                return;
            case DELETE:
                Row key = event.key()
                        .or(event::before)
                        .orElseThrow(() -> new IllegalArgumentException("a delete of "
                                + source
                                + " without a key or a row before: the target's row cannot be found. Remedy: give "
                                + "the source table a primary key, or REPLICA IDENTITY FULL"));
                out.delete(target.name(), values(event, replica, target.key(), key));
                return;
            case TRUNCATE:
            default:
                throw new IllegalArgumentException("a TRUNCATE of source table " + source + ": replication into "
                        + target.table() + " takes inserts, updates and deletes only. Remedy: have the connector skip "
                        + "truncates (skipped.operations=t, its default) and truncate the target yourself");
        }
    }

    private Object[] values(ChangeEvent event, ReplicaTable replica, List<String> columns, Row row) {
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < values.length; i++) {
            String column = columns.get(i);
            if (!row.has(column)) {
                throw new IllegalArgumentException("the " + event.kind() + " of source table " + replica.source()
                        + " has no column " + column + ", which target table "
                        + replica.target().table()
                        + " has (the event has " + row.columns() + "). Remedy: add the column at the source, or "
                        + "drop it from the target");
            }
            Object value = row.value(column);
            if (unavailable(value)) {
                throw new IllegalArgumentException("the " + event.kind() + " of source table " + replica.source()
                        + " left column " + column + " out (a TOASTed value the update did not change, which Debezium "
                        + "sends as " + UNAVAILABLE + "). Remedy: ALTER TABLE " + replica.source()
                        + " REPLICA IDENTITY FULL at the source");
            }
            values[i] = value instanceof JsonScalar s
                    ? schemaless.convert(
                            s, replica.types().get(replica.target().columns().indexOf(column)))
                    : value;
        }
        return values;
    }

    /**
     * Whether a value is Debezium's placeholder: as text, as the bytes of a bytea (which Debezium sends for a
     * TOASTed bytea), or as their base64 in an event without its schema.
     */
    private static boolean unavailable(Object value) {
        if (UNAVAILABLE.equals(value)) {
            return true;
        }
        if (value instanceof byte[] bytes) {
            return java.util.Arrays.equals(bytes, UNAVAILABLE_BYTES);
        }
        return value instanceof JsonScalar s
                && s.kind() == JsonScalar.Kind.STRING
                && (UNAVAILABLE.equals(s.text()) || UNAVAILABLE_BASE64.equals(s.text()));
    }

    @Override
    public String toString() {
        return "ChangeEventRouter[" + tables + "]";
    }
}
