/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.testing.hardcases.SinkUnchainedHardCases;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The hard cases where chaining disabled by the sink can matter ({@link SinkUnchainedHardCases}) on the file sink.
 */
class FileSinkHardCasesSinkUnchainedITCase extends SinkUnchainedHardCases {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkHardCasesSinkUnchainedITCase() {
        super(new FileBackend(ROOT));
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
