/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.row;

import org.apache.flink.annotation.Internal;

import java.util.List;

/**
 * The sink's columns do not fit the table: some are missing, or cannot take the values of the
 * records' types. Thrown at writer start, before anything is written; the caller adds the sink and
 * the table to its message.
 */
@Internal
public final class ColumnsRefused extends Exception {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /** @param problems one sentence per column that does not fit, naming the column, both types and the remedy */
    public ColumnsRefused(List<String> problems) {
        super(String.join("; ", problems));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("no problem to report");
        }
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
