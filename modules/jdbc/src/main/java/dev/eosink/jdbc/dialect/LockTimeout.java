/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import org.apache.flink.annotation.PublicEvolving;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * How a session bounds its waits for locks held by another transaction (a row of a prepared transaction, or of
 * another client's open one), so that such a wait fails with a message naming the holders rather than running into
 * the network timeout.
 */
@PublicEvolving
public interface LockTimeout {

    /** Sets the bound on {@code c}, rounded up to whole seconds where the database counts seconds. */
    void set(Connection c, Duration timeout) throws SQLException;

    /** The server setting(s) {@link #set} sets, for messages. */
    String setting();

    /** Where an operator sees who holds the lock a write waited for, for remedies. */
    String holdersHint();
}
