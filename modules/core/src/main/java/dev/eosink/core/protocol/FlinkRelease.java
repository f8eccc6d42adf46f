/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.SinkException;
import dev.eosink.core.spi.SubtaskContext;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.util.EnvironmentInformation;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The oldest patch release of each supported Flink line that the sink runs on. Flink's own sink operators
 * ({@code SinkWriterOperator}, {@code CommitterOperator}) changed within lines in how they tag and commit the
 * transactions of the end of input: on the releases before these, the hard cases fail (docs/flink-versions.md,
 * "The oldest patch release of each line"). A writer refuses to start on one, without restarts, naming the
 * release, the line's oldest supported one and why; a release this class cannot read ({@code <unknown>}, a
 * snapshot build) or of a line it does not list is let through.
 */
@Internal
public final class FlinkRelease {

    /** Per line, the oldest patch release the sink runs on, and what goes wrong before it. */
    private static final Map<String, Minimum> MINIMUM = Map.of(
            "1.20",
                    new Minimum(
                            2,
                            "Flink 1.20.0 fails a stop-with-savepoint --drain (a second committable summary of "
                                    + "one subtask and checkpoint, which its committer refuses) and lets a transaction lost at the end of "
                                    + "input go unreported; 1.20.1 fails a stop-with-savepoint --drain ('Received element after "
                                    + "endOfInput')"),
            "2.0",
                    new Minimum(
                            1,
                            "Flink 2.0.0 ends the input as 1.20.1 does, which fails a stop-with-savepoint "
                                    + "--drain"));

    private static final Pattern RELEASE = Pattern.compile("(\\d+\\.\\d+)\\.(\\d+)");

    /** The oldest patch release of a line, and why the ones before it are refused. */
    private static final class Minimum {
        final int patch;
        final String why;

        Minimum(int patch, String why) {
            this.patch = patch;
            this.why = why;
        }
    }

    private FlinkRelease() {}

    /**
     * Refuses, without restarts, to run a writer on the Flink release of this TaskManager when it is older than
     * its line's oldest supported patch release.
     */
    public static void check(SubtaskContext context) {
        refusal(EnvironmentInformation.getVersion()).ifPresent(why -> {
            throw new SuppressRestartsException(new SinkException(context + ": " + why));
        });
    }

    /** Why the sink does not run on Flink {@code version} ("1.20.1"); empty when it does, or cannot tell. */
    static Optional<String> refusal(String version) {
        Matcher m = RELEASE.matcher(version == null ? "" : version);
        if (!m.matches()) {
            return Optional.empty();
        }
        Minimum minimum = MINIMUM.get(m.group(1));
        if (minimum == null || Integer.parseInt(m.group(2)) >= minimum.patch) {
            return Optional.empty();
        }
        String oldest = m.group(1) + "." + minimum.patch;
        return Optional.of("this TaskManager runs Flink " + version + ", older than the oldest patch release of the "
                + m.group(1) + " line this sink runs on, " + oldest + ": " + minimum.why + " (docs/flink-versions.md). "
                + "Remedy: run the job on Flink " + oldest + " or later of the " + m.group(1) + " line");
    }
}
