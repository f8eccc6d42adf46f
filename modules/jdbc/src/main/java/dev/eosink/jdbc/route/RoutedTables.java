/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.route;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.java.functions.KeySelector;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tables a routed sink writes and the route from its records to their changes. Immutable once
 * built; the declared order is kept wherever foreign keys leave a choice.
 *
 * <pre>{@code
 * RoutedTables.<Transfer>route((t, out) -> {
 *         out.upsert("public.accounts", t.from(), t.fromBalance());
 *         out.upsert("public.accounts", t.to(), t.toBalance());
 *         out.upsert("public.transfers", t.id(), t.from(), t.to(), t.amount());
 *     })
 *     .table(RoutedTable.of("public", "accounts", List.of("id", "balance"), List.of("id")))
 *     .table(RoutedTable.of("public", "transfers", List.of("id", "src", "dst", "amount"), List.of("id")))
 *     .build();
 * }</pre>
 *
 * @param <IN> the records the sink writes
 */
@PublicEvolving
public final class RoutedTables<IN> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final List<RoutedTable> tables;
    private final TableRoute<IN> route;
    /** Null: the records go to the writers as the job sends them. */
    private final KeySelector<IN, ?> group;

    private final boolean evolving;

    private RoutedTables(List<RoutedTable> tables, TableRoute<IN> route, KeySelector<IN, ?> group, boolean evolving) {
        this.tables = tables;
        this.route = route;
        this.group = group;
        this.evolving = evolving;
    }

    /** Starts the tables of {@code route}; declare each with {@link Builder#table}. */
    public static <IN> Builder<IN> route(TableRoute<IN> route) {
        return new Builder<>(Objects.requireNonNull(route, "route"));
    }

    /** The tables, in the order they were declared. */
    public List<RoutedTable> tables() {
        return tables;
    }

    /** The route that makes each record's changes of these tables. */
    public TableRoute<IN> route() {
        return route;
    }

    /**
     * The consistency group of each record, when the sink distributes its input by it ({@link Builder#groupedBy}):
     * each group's records go to one writer subtask, in the order they come; empty when the job distributes them.
     */
    public Optional<KeySelector<IN, ?>> group() {
        return Optional.ofNullable(group);
    }

    /**
     * Whether the sink creates and widens tables as the route's {@link TableChanges#evolve shapes} ask
     * ({@link Builder#evolving()}).
     */
    public boolean evolving() {
        return evolving;
    }

    /** The declared table a route names so, if any. */
    public Optional<RoutedTable> find(String name) {
        return tables.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** For messages: the tables' names. */
    public String describe() {
        List<String> names = new ArrayList<>();
        tables.forEach(t -> names.add(t.table().toString()));
        return "tables " + names + (evolving ? " and those the route's shapes create" : "");
    }

    @Override
    public String toString() {
        return "RoutedTables" + tables + (evolving ? " evolving" : "");
    }

    /** Declares the tables of a route. */
    @PublicEvolving
    public static final class Builder<IN> {
        private final TableRoute<IN> route;
        private final Map<String, RoutedTable> tables = new LinkedHashMap<>();
        private KeySelector<IN, ?> group;
        private boolean evolving;

        private Builder(TableRoute<IN> route) {
            this.route = route;
        }

        /**
         * Adds a table the route may name.
         *
         * @throws IllegalArgumentException when a table of that name was declared already
         */
        public Builder<IN> table(RoutedTable table) {
            Objects.requireNonNull(table, "table");
            if (tables.putIfAbsent(table.name(), table) != null) {
                throw new IllegalArgumentException("table " + table.name() + " is declared twice");
            }
            return this;
        }

        /**
         * Has the sink send each record to the writer subtask of its consistency group (records that must commit
         * together and in order: one source database, one tenant), as an upsert sink partitions by its key: groups
         * spread over the subtasks, each group's records in one, in the order they come from one upstream subtask.
         * Groups must share no rows. Without it, the job's own distribution decides (send a group to one subtask).
         */
        public Builder<IN> groupedBy(KeySelector<IN, ?> group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /**
         * Has the sink create and widen tables as the route's {@link TableChanges#evolve shapes} ask: a table the
         * route names need not be declared (nor exist) once its shape was given, and a declared one may be missing
         * at start. The sink's role then needs {@code CREATE} on the tables' schemas and must own the tables it
         * widens (see sql/02-sink-role.sql). Columns are only ever added; see {@link TableChanges#evolve}.
         */
        public Builder<IN> evolving() {
            this.evolving = true;
            return this;
        }

        /**
         * The tables and the route.
         *
         * @throws IllegalStateException when no table was declared and the tables are not {@link #evolving()}
         */
        public RoutedTables<IN> build() {
            if (tables.isEmpty() && !evolving) {
                throw new IllegalStateException("declare at least one table(...) for the route, or make the tables "
                        + "evolving() to have the route's shapes create them");
            }
            return new RoutedTables<>(List.copyOf(tables.values()), route, group, evolving);
        }
    }
}
