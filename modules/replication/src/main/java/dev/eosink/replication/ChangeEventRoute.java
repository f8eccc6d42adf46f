/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.java.functions.KeySelector;

import java.util.Objects;

/**
 * A route of single change events, one per record: the per-key mode, where the sink's subtasks take the changes
 * by table and key ({@link #byKey()}) and no source transaction is kept whole.
 */
@PublicEvolving
public final class ChangeEventRoute implements TableRoute<ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final ChangeEventRouter router;

    /** A route of each change event by {@code router}. Throws {@link NullPointerException} for a null router. */
    public ChangeEventRoute(ChangeEventRouter router) {
        this.router = Objects.requireNonNull(router, "router");
    }

    @Override
    public void route(ChangeEvent record, TableChanges out) {
        router.evolve(record, out);
        router.route(record, out);
    }

    /**
     * The group of per-key mode: the event's table and key, so that each row's changes go to one writer subtask
     * in their order ({@link ReplicaTables#routed(TableRoute, KeySelector)}). Rows of one source transaction may
     * then commit in different subtasks at different times, and a foreign key between them may refuse a child
     * whose parent another subtask writes: per-key targets have none.
     */
    public static KeySelector<ChangeEvent, String> byKey() {
        // Row's text is deterministic (byte arrays by length, long texts cut): two keys may share a group, which
        // only puts them on one subtask; one key is always one group.
        return event -> event.table().dataCollection() + "/"
                + event.key().map(Object::toString).orElse("");
    }
}
