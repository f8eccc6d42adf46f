/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Many tables written by one sink, in one transaction per subtask and checkpoint: a {@link
 * dev.eosink.jdbc.route.TableRoute} turns each record into upserts and deletes of declared {@link
 * dev.eosink.jdbc.route.RoutedTable}s, all of which commit together (docs/tables.md).
 */
package dev.eosink.jdbc.route;
