/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The XA sink's own tests against PostgreSQL through pgjdbc's PGXADataSource. */
class XaPostgresITCase extends XaDialectCases {

    @Override
    XaBackend backend() {
        return new XaPostgresBackend();
    }

    /**
     * A server with max_prepared_transactions = 0 cannot prepare a branch: refused at start, with the remedy,
     * and without restarts (a restart finds the same setting).
     */
    @Test
    void preparedTransactionsDisabledIsRefusedAtStart() throws Exception {
        try (StandalonePostgres server = PostgresFixture.startNew(Map.of("max_prepared_transactions", "0"))) {
            XaPostgresBackend disabled = new XaPostgresBackend(server);
            disabled.createTable(table);
            String messages = refusedAtStart(disabled.connect(XaSink.<Long>builder())
                    .sinkId(sinkId)
                    .table(table)
                    .columns("id", "payload")
                    .rows(id -> new Object[] {id, "row-" + id})
                    .build());
            assertThat(messages)
                    .contains("sink '" + sinkId + "' subtask 0/1")
                    .contains("has max_prepared_transactions = 0")
                    .contains("Remedy: set max_prepared_transactions in postgresql.conf");
            assertThat(server.count("SELECT count(*) FROM " + table)).as("rows").isZero();
        }
    }
}
