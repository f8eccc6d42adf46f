/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.jdbc.route.RoutedTable;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * One replicated table: the source table's name as Debezium gives it ({@code schema.table}, its data collection),
 * the target table that receives its changes, and each target column's PostgreSQL type (what a value of an event
 * without its schema is converted to). Immutable.
 */
@PublicEvolving
public final class ReplicaTable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String source;
    private final RoutedTable target;
    private final List<String> types;

    /**
     * @param source the source table as Debezium names it ({@code public.accounts})
     * @param target the target table, its columns and its key
     * @param types per target column, in their order, its PostgreSQL type ({@code format_type}: {@code bigint},
     *     {@code numeric(10,2)}, {@code timestamp(6) without time zone})
     */
    public ReplicaTable(String source, RoutedTable target, List<String> types) {
        this.source = Objects.requireNonNull(source, "source");
        this.target = Objects.requireNonNull(target, "target");
        this.types = List.copyOf(types);
        if (this.types.size() != target.columns().size()) {
            throw new IllegalArgumentException("table " + target.name() + ": "
                    + target.columns().size() + " columns but " + this.types.size() + " types");
        }
    }

    /** The source table as Debezium names it ({@code schema.table}). */
    public String source() {
        return source;
    }

    /** The target table, its columns and its key. */
    public RoutedTable target() {
        return target;
    }

    /** The PostgreSQL type of each target column, in the columns' order. */
    public List<String> types() {
        return types;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof ReplicaTable other
                        && source.equals(other.source)
                        && target.equals(other.target)
                        && types.equals(other.types);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, target, types);
    }

    @Override
    public String toString() {
        return source + " -> " + target + " " + types;
    }
}
