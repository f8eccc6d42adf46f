/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The explorer: short scenarios of an operator's and the world's steps ({@link dev.eosink.testing.explore.Step}),
 * drawn from a seed ({@link dev.eosink.testing.explore.ScenarioGenerator}) or read back from their text, run against
 * a real database ({@link dev.eosink.testing.explore.ScenarioRunner}), their {@link
 * dev.eosink.testing.explore.History} judged by what the sink promises ({@link dev.eosink.testing.explore.Oracle}).
 * A database module extends {@link dev.eosink.testing.explore.ExplorerSuite}; docs/testing.md says how to run it
 * for longer and how to run the same scenarios again.
 */
package dev.eosink.testing.explore;
