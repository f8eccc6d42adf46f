/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.files;

import dev.eosink.testing.hardcases.ResourceHardCases;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The protocol's resource-neutral hard cases ({@link ResourceHardCases}: failover, a declined or expired
 * checkpoint, a crash between a checkpoint and its commit, leftovers at start, a second live job,
 * savepoints older and newer, rescales) on the file sink: counted in the lines of the committed files,
 * with no pending file left. Each test's files live in a directory of its own under one temporary root.
 */
class FileSinkHardCasesITCase extends ResourceHardCases {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkHardCasesITCase() {
        super(new FileBackend(ROOT));
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
