/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.SinkSettings;

import java.nio.file.Path;

/**
 * An exactly-once sink into the files of a directory: every record a line, each checkpoint's records of
 * each subtask one file of {@code committed/}, visible once the checkpoint completed, whole or not at
 * all. Built from the core's public entry point, {@link ExactlyOnceSink#ExactlyOnceSink(
 * dev.eosink.core.spi.TransactionalDatabase, SinkSettings)}, as any sink for another transactional system
 * would be (docs/extending.md).
 */
public final class FileSink {

    private FileSink() {}

    /**
     * The sink into {@code directory} (created if missing), with {@code settings} (their sink id names
     * every file; {@link SinkSettings#defaults(String)} for the defaults).
     */
    public static <IN> ExactlyOnceSink<IN> create(Path directory, LineFormat<IN> format, SinkSettings settings) {
        return new ExactlyOnceSink<>(new FileTransactions<>(directory, format), settings);
    }
}
