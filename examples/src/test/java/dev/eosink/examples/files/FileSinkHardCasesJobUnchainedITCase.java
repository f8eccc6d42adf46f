/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.testing.hardcases.JobUnchainedHardCases;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The hard cases where chaining disabled by the job can matter ({@link JobUnchainedHardCases}) on the file sink.
 */
class FileSinkHardCasesJobUnchainedITCase extends JobUnchainedHardCases {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkHardCasesJobUnchainedITCase() {
        super(new FileBackend(ROOT));
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
