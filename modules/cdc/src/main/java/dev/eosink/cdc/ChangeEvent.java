/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Objects;
import java.util.Optional;

/**
 * A change to one table's rows, as one Debezium change event describes it. Immutable and serializable.
 *
 * <p>What it holds, by {@link ChangeKind}:
 *
 * <table>
 *   <caption>the parts of a change event</caption>
 *   <tr><th>kind</th><th>key</th><th>before</th><th>after</th></tr>
 *   <tr><td>INSERT, SNAPSHOT_READ</td><td>if the table has one</td><td>empty</td><td>present</td></tr>
 *   <tr><td>UPDATE</td><td>if the table has one</td><td>if the connector gives it</td><td>present</td></tr>
 *   <tr><td>DELETE</td><td>if the table has one</td><td>if the connector gives it</td><td>empty</td></tr>
 *   <tr><td>TRUNCATE</td><td>empty</td><td>empty</td><td>empty</td></tr>
 * </table>
 *
 * The key is the event's key (the primary key, or the columns of {@code message.key.columns}), its columns in the
 * key's order. An update that changes the key comes from Debezium as a DELETE of the old key followed by an INSERT
 * of the new one (a tombstone between them, which the parser drops). PostgreSQL gives the row before an update or a
 * delete only as its replica identity holds it: all columns with {@code REPLICA IDENTITY FULL}, by default the key's
 * columns alone on a delete and no row before an update.
 */
@PublicEvolving
public final class ChangeEvent implements CdcEvent {

    private static final long serialVersionUID = 1L;

    private final EventOrigin origin;
    private final ChangeKind kind;
    /** Null for TRUNCATE and for a table without a key. */
    private final Row key;
    /** Null when the event has no row before. */
    private final Row before;
    /** Null when the event has no row after. */
    private final Row after;

    /**
     * @throws IllegalArgumentException when the rows present do not fit the kind (the table above)
     */
    public ChangeEvent(
            EventOrigin origin, ChangeKind kind, Optional<Row> key, Optional<Row> before, Optional<Row> after) {
        this.origin = Objects.requireNonNull(origin, "origin");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.key = key.orElse(null);
        this.before = before.orElse(null);
        this.after = after.orElse(null);
        if (kind.hasRowAfter() != after.isPresent()) {
            throw new IllegalArgumentException(
                    kind + (after.isPresent() ? " has no row after" : " needs a row after") + ": " + origin);
        }
        boolean beforeAllowed = kind == ChangeKind.UPDATE || kind == ChangeKind.DELETE;
        if (before.isPresent() && !beforeAllowed) {
            throw new IllegalArgumentException(kind + " has no row before: " + origin);
        }
        if (kind == ChangeKind.TRUNCATE && key.isPresent()) {
            throw new IllegalArgumentException("TRUNCATE has no key: " + origin);
        }
    }

    /** Where the event comes from: its table, its position at the source and its source transaction. */
    public EventOrigin origin() {
        return origin;
    }

    /** The table, as in {@link #origin()}. */
    public TableId table() {
        return origin.table();
    }

    /** The source transaction, as in {@link #origin()}. */
    public Optional<SourceTransaction> transaction() {
        return origin.transaction();
    }

    /** The source position, as in {@link #origin()}. */
    public SourcePosition position() {
        return origin.position();
    }

    /** What the change is: an insert, a snapshot read, an update, a delete or a truncate. */
    public ChangeKind kind() {
        return kind;
    }

    /** The key's columns and values in the key's order; empty for TRUNCATE and a table without a key. */
    public Optional<Row> key() {
        return Optional.ofNullable(key);
    }

    /** The row before the change, when the event has it (see the class comment). */
    public Optional<Row> before() {
        return Optional.ofNullable(before);
    }

    /** The row after the change: present exactly when {@link ChangeKind#hasRowAfter()}. */
    public Optional<Row> after() {
        return Optional.ofNullable(after);
    }

    /** The schema of the table's rows, when the event embeds one. */
    public Optional<RowSchema> rowSchema() {
        Row row = after != null ? after : before;
        return row == null ? Optional.empty() : row.schema();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangeEvent other
                && origin.equals(other.origin)
                && kind == other.kind
                && Objects.equals(key, other.key)
                && Objects.equals(before, other.before)
                && Objects.equals(after, other.after);
    }

    @Override
    public int hashCode() {
        return Objects.hash(origin, kind, key, before, after);
    }

    /** Kind, table, key and transaction; no row values, which may be large. */
    @Override
    public String toString() {
        return kind + " " + origin.table() + (key == null ? "" : " key " + key)
                + origin.transaction().map(t -> " in " + t).orElse("");
    }
}
