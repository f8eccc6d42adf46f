/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Objects;

/**
 * A route of single change events, one per record: the per-key mode, where the sink's subtasks may take the
 * changes of one table by key and no source transaction is kept whole.
 */
@PublicEvolving
public final class ChangeEventRoute implements TableRoute<ChangeEvent> {

    private static final long serialVersionUID = 1L;

    private final ChangeEventRouter router;

    public ChangeEventRoute(ChangeEventRouter router) {
        this.router = Objects.requireNonNull(router, "router");
    }

    @Override
    public void route(ChangeEvent record, TableChanges out) {
        router.route(record, out);
    }
}
