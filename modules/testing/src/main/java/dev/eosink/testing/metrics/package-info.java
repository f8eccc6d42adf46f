/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The sink's metrics as a reporter sees them, for tests: {@link dev.eosink.testing.metrics.InMemoryReporter}.
 */
package dev.eosink.testing.metrics;
