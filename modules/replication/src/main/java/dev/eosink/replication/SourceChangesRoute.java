/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.replication;

import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.SourceChanges;
import dev.eosink.jdbc.route.TableChanges;
import dev.eosink.jdbc.route.TableRoute;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Objects;

/**
 * A route of whole source transactions ({@link SourceChanges}, as {@code TransactionAssembler} makes them), one per
 * record: every change of a transaction lands in the same database transaction of the sink, so the target only
 * ever shows states the source had. Send one consistency group (one source database) to one sink subtask.
 */
@PublicEvolving
public final class SourceChangesRoute implements TableRoute<SourceChanges> {

    private static final long serialVersionUID = 1L;

    private final ChangeEventRouter router;

    /**
     * A route of each whole source transaction, its changes made by {@code router}. Throws {@link NullPointerException}
     * for a null router.
     */
    public SourceChangesRoute(ChangeEventRouter router) {
        this.router = Objects.requireNonNull(router, "router");
    }

    @Override
    public void route(SourceChanges record, TableChanges out) {
        for (ChangeEvent change : record.changes()) {
            router.evolve(change, out); // every shape first: tables change between records, not within one
        }
        for (ChangeEvent change : record.changes()) {
            router.route(change, out);
        }
    }

    /** The unit's sequence and size, not its events, which may be many. */
    @Override
    public Object shown(SourceChanges record) {
        return record.getClass().getSimpleName() + " #" + record.sequence() + " of "
                + record.changes().size() + " change(s)";
    }
}
