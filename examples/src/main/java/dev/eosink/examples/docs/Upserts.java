/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import dev.eosink.postgres.PostgresSink;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.types.RowKind;

/** docs/options.md's upsert sample: the last record of each key wins, deletes from a changelog. */
final class Upserts {

    private Upserts() {}

    static void balances(DataStream<Change> changes, String secret) {
        // [START upsert]
        changes.sinkTo(PostgresSink.<Change>builder()
                .jdbcUrl("jdbc:postgresql://db:5432/shop")
                .username("flink_sink")
                .password(secret)
                .sinkId("balances")
                .table("public", "balances")
                .columns("id", "balance", "updated")
                .rows(c -> new Object[] {c.id, c.balance, c.updated})
                .upsert("id") // the last record of each key wins
                .changelog(c -> c.deleted ? RowKind.DELETE : RowKind.UPDATE_AFTER)
                .build());
        // [END upsert]
    }
}
