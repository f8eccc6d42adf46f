/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Real servers for the tests, never mocks: {@link dev.eosink.testing.PostgresFixture} (an external server, one
 * started by Testcontainers, or an embedded PostgreSQL), {@link dev.eosink.testing.MariaDbFixture}, {@link
 * dev.eosink.testing.FirebirdFixture} and {@link dev.eosink.testing.StandalonePostgres} (one server of a test's own,
 * which it may crash, stall and start again); what may stand between a sink and its server ({@link
 * dev.eosink.testing.TcpProxy}, which cuts or stalls connections on command, and {@link
 * dev.eosink.testing.PgBouncer}). docs/testing.md says which server a test run gets and how to choose another.
 */
package dev.eosink.testing;
