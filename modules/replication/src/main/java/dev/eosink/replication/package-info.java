/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Replication of a source database's changes, as Debezium captures them ({@code dev.eosink.cdc}), into the
 * routed tables of an eosink sink ({@code dev.eosink.jdbc.route}): the target tables, read from the target
 * database's catalog ({@link dev.eosink.replication.ReplicaTables}), and the route from change events to their
 * upserts and deletes ({@link dev.eosink.replication.ChangeEventRouter}). See docs/cdc.md.
 */
package dev.eosink.replication;
