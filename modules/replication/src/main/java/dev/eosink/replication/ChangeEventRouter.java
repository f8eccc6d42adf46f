/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.ColumnSchema;
import dev.eosink.cdc.JsonScalar;
import dev.eosink.cdc.Row;
import dev.eosink.cdc.RowSchema;
import dev.eosink.cdc.SchemalessValues;
import dev.eosink.jdbc.route.RoutedTable;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableShape;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Turns one change event into the upsert or delete of its replica table: an insert, a snapshot read or an update
 * upserts the row after the change (every target column's value, by name); a delete deletes the event's key; a
 * truncate empties the table ({@code TableChanges.truncate}: Debezium sends truncates with {@code
 * skipped.operations} other than its default {@code t}). Values of events with their schema go as they are; values
 * of events without it are converted to their target column's type ({@link SchemalessValues}).
 *
 * <p>Refused, naming the table, the column and the remedy: a change of a table that is not replicated; a target
 * column the event does not have (unless the tables are evolving); and Debezium's
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
    /** Shapes by target, row schema and key schema: events of one schema share one. */
    private transient Map<List<Object>, TableShape> shapes;

    /** Events with their schema, or without it with values converted as {@code schemaless} says. */
    public ChangeEventRouter(ReplicaTables tables, SchemalessValues schemaless) {
        this.tables = Objects.requireNonNull(tables, "tables");
        this.schemaless = Objects.requireNonNull(schemaless, "schemaless");
    }

    /** The replicated tables: what each source table's changes go to. */
    public ReplicaTables tables() {
        return tables;
    }

    /**
     * For an {@linkplain ReplicaTables#evolving() evolving} replication, gives {@code out} the shape of the event's
     * table (its columns and key from the event's schema), which the sink creates or widens the table to; nothing
     * for a delete or a truncate, or otherwise. A record's shapes come before its changes: call it for each of them before {@link #route}.
     */
    public void evolve(ChangeEvent event, TableChanges out) {
        // A delete needs the key only, which a table made from an earlier event has; it may carry no row schema.
        if (tables.evolving() && event.kind().hasRowAfter()) {
            out.evolve(shape(event, target(event)));
        }
    }

    /** Emits the event's change into {@code out}. */
    public void route(ChangeEvent event, TableChanges out) {
        if (tables.evolving()) {
            routeEvolving(event, target(event), out);
            return;
        }
        String source = event.table().dataCollection();
        ReplicaTable replica = tables.forSource(source).orElseThrow(() -> undeclared(source));
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
                out.truncate(target.name());
                return;
            default:
                throw new IllegalStateException("no change kind " + event.kind());
        }
    }

    private String target(ChangeEvent event) {
        String source = event.table().dataCollection();
        return tables.targetOf(source).orElseThrow(() -> undeclared(source));
    }

    private IllegalArgumentException undeclared(String source) {
        return new IllegalArgumentException("a change of source table " + source
                + ", which this replication does not declare (it replicates " + tables.sources()
                + "). Remedy: add the table, or leave its topic out");
    }

    /** The target table's shape as the event's schema gives it: the columns as the source has them, its key. */
    private TableShape shape(ChangeEvent event, String target) {
        String source = event.table().dataCollection();
        RowSchema row = event.rowSchema()
                .orElseThrow(() -> new IllegalArgumentException("the " + event.kind() + " of source table " + source
                        + " carries no schema, by which an evolving replication creates and widens " + target
                        + ". Remedy: have the converter embed schemas (value.converter.schemas.enable=true), or "
                        + "replicate into existing tables (ReplicaTables.read)"));
        RowSchema key = event.key()
                .flatMap(Row::schema)
                .orElseThrow(() -> new IllegalArgumentException("the " + event.kind() + " of source table " + source
                        + " has no key, by which replication upserts and deletes its rows in " + target
                        + ". Remedy: give the source table a primary key"));
        if (shapes == null) {
            shapes = new HashMap<>();
        }
        return shapes.computeIfAbsent(List.of(target, row, key), k -> {
            int dot = target.lastIndexOf('.');
            List<TableShape.Column> columns = new ArrayList<>();
            for (ColumnSchema c : row.columns()) {
                columns.add(new TableShape.Column(c.name(), c.postgresType(), c.optional()));
            }
            List<String> keyColumns =
                    key.columns().stream().map(ColumnSchema::name).collect(Collectors.toList());
            return TableShape.of(target.substring(0, dot), target.substring(dot + 1), columns, keyColumns);
        });
    }

    /**
     * The change by column name into an evolving table: a column the event lacks (the source dropped it, or the
     * table has more) gets null, a delete goes by the event's key, whose columns are the table's key.
     */
    private void routeEvolving(ChangeEvent event, String target, TableChanges out) {
        String source = event.table().dataCollection();
        switch (event.kind()) {
            case INSERT:
            case SNAPSHOT_READ:
            case UPDATE:
                Row after = event.after().orElseThrow();
                List<String> columns = out.columns(target);
                Object[] values = new Object[columns.size()];
                for (int i = 0; i < values.length; i++) {
                    String column = columns.get(i);
                    values[i] = after.has(column) ? available(event, source, column, after.value(column)) : null;
                }
                out.upsert(target, values);
                return;
            case DELETE:
                Row key = event.key()
                        .orElseThrow(() -> new IllegalArgumentException("a delete of " + source + " without a key: "
                                + "the target's row cannot be found. Remedy: give the source table a primary key"));
                out.delete(target, key.values().toArray());
                return;
            case TRUNCATE:
                out.truncate(target);
                return;
            default:
                throw new IllegalStateException("no change kind " + event.kind());
        }
    }

    private static Object available(ChangeEvent event, String source, String column, Object value) {
        if (unavailable(value)) {
            throw new IllegalArgumentException("the " + event.kind() + " of source table " + source
                    + " left column " + column + " out (a TOASTed value the update did not change, which Debezium "
                    + "sends as " + UNAVAILABLE + "). Remedy: ALTER TABLE " + source
                    + " REPLICA IDENTITY FULL at the source");
        }
        return value;
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
            Object value = available(event, replica.source(), column, row.value(column));
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
