package dev.eosink.examples.files;

import dev.eosink.testing.hardcases.RunDimension;
import dev.eosink.testing.hardcases.UnchainedHardCases;

import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The hard cases where chaining can matter ({@link UnchainedHardCases}) on the file sink, chaining disabled by
 * the job.
 */
class FileSinkHardCasesJobUnchainedITCase extends UnchainedHardCases {

    private static final Path ROOT = TemporaryRoot.create();

    FileSinkHardCasesJobUnchainedITCase() {
        super(new FileBackend(ROOT), RunDimension.JOB_CHAINING_DISABLED);
    }

    @AfterAll
    static void deleteRoot() throws IOException {
        TemporaryRoot.delete(ROOT);
    }
}
