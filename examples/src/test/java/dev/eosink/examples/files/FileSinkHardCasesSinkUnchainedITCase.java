package dev.eosink.examples.files;

import dev.eosink.testing.hardcases.RunDimension;
import dev.eosink.testing.hardcases.UnchainedHardCases;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases}) on the file sink, chaining disabled by
 * the sink.
 */
class FileSinkHardCasesSinkUnchainedITCase extends UnchainedHardCases {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkHardCasesSinkUnchainedITCase() {
        super(new FileBackend(ROOT), RunDimension.SINK_CHAINING_DISABLED);
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
