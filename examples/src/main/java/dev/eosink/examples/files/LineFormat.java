/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import java.io.Serializable;

/**
 * How a record becomes one line of a file: the user's function, shipped with the job graph (so
 * serializable). The line must not contain a line break; the sink refuses one that does, naming the
 * record's position, rather than split a record in two.
 *
 * @param <IN> the records the sink writes
 */
@FunctionalInterface
public interface LineFormat<IN> extends Serializable {

    /** The record as one line, without the line break. */
    String line(IN record);
}
