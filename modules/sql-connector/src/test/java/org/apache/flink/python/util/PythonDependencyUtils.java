/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.flink.python.util;

import org.apache.commons.cli.CommandLine;
import org.apache.flink.configuration.Configuration;

/**
 * Stands in for flink-python's class of this name on the SQL client's class path (see {@code
 * FlinkSqlClient}). The client reads its Python options through it whatever the script, and Flink's
 * distribution has flink-python beside the client; the tests run no Python, so none of that large
 * artifact is needed: no Python options, an empty configuration.
 */
public final class PythonDependencyUtils {

    private PythonDependencyUtils() {}

    /** The SQL client's only call: the configuration of its Python options, of which there are none. */
    public static Configuration parsePythonDependencyConfiguration(CommandLine commandLine) {
        return new Configuration();
    }
}
