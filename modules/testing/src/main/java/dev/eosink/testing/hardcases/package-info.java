/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The hard-case suite: each case written once, against a {@link dev.eosink.testing.hardcases.ResourceBackend} (and
 * a {@link dev.eosink.testing.hardcases.HardCaseBackend} for the cases about connections and SQL), and run by the
 * suites a database module extends with its backend ({@link dev.eosink.testing.hardcases.HardCases}, {@link
 * dev.eosink.testing.hardcases.ResourceHardCases} and those of the other run dimensions). {@link
 * dev.eosink.testing.hardcases.ProtocolTrace} records what the sink did, so that a case proves which transaction a
 * fault hit and what became of it. docs/testing.md lists the cases; docs/extending.md says how a sink of another
 * resource runs them.
 */
package dev.eosink.testing.hardcases;
