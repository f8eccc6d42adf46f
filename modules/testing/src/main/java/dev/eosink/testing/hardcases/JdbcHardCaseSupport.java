/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

/**
 * What the cases that need a JDBC database stand on ({@link ConnectionCases}, {@link SqlCases}): the
 * same as {@link HardCaseSupport}, with the backend's JDBC part (its URL, an administrator's
 * connection and SQL, the sink's sessions on the server, a server of the test's own).
 */
public interface JdbcHardCaseSupport extends HardCaseSupport {

    @Override
    HardCaseBackend backend();
}
