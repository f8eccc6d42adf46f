/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.testing.hardcases.FixedJobIdHardCases;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;

/** The hard cases where a fixed job id can matter ({@link FixedJobIdHardCases}) on the file sink. */
class FileSinkHardCasesFixedJobIdITCase extends FixedJobIdHardCases {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkHardCasesFixedJobIdITCase() {
        super(new FileBackend(ROOT));
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
