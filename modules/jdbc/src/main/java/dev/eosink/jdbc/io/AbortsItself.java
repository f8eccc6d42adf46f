/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.io;

import org.apache.flink.annotation.Internal;

/**
 * Marks a connection whose {@code abort} ends a blocked call by itself (another driver's, wrapped to
 * close its socket): {@link IoWatchdog} then leaves its socket as it is, and says nothing about it.
 */
@Internal
public interface AbortsItself {}
