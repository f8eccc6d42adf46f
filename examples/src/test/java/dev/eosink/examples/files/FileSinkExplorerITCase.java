/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.testing.explore.ExplorerSuite;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** The explorer ({@link ExplorerSuite}) on the file sink: its table is a directory of committed files. */
class FileSinkExplorerITCase extends ExplorerSuite {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkExplorerITCase() {
        super(new FileBackend(ROOT), Duration.ofSeconds(45));
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
