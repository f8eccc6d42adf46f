/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * A source database and Debezium, for the replication tests: {@link dev.eosink.testing.cdc.SourceBank} (tables and
 * transactions whose invariants a replica must keep at every commit), {@link dev.eosink.testing.cdc.DebeziumCapture}
 * (Debezium's embedded engine, its records as its JSON converter writes them) and {@link
 * dev.eosink.testing.cdc.ReplicaReader} (checks those invariants on the replica while a job writes it).
 */
package dev.eosink.testing.cdc;
