/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where an eosink writer's prepares spent their time, from its own DEBUG line per prepare in the run's
 * log ({@code PostgresWriterSession}: ending the COPY, that is the server storing the rows still in
 * flight; the marker row; PREPARE TRANSACTION), and how long COPY flow control paused the writer in
 * each epoch. The measured job's lines only: the warm-up's sink is named after its scratch table.
 */
final class PrepareBreakdown {

    static final String END_OF_COPY = "end_of_copy_us";
    static final String MARKER = "marker_us";
    static final String PREPARE = "prepare_statement_us";
    static final String FLOW_CONTROL = "flow_control_wait_us";

    private static final Pattern LINE = Pattern.compile("sink '([^']+)' subtask .*: prepared \\S+ in \\d+ us: "
            + "last rows and end of COPY (\\d+) us, marker (\\d+) us, PREPARE (\\d+) us; "
            + "COPY flow control in the epoch: (?:no waits|\\d+ waits?, (\\d+) ms)");

    private PrepareBreakdown() {}

    /** Reads the lines of the sink named {@code table} from {@code log} into {@code result}. */
    static void read(Path log, String table, RunResult result) {
        List<Long> endOfCopy = new ArrayList<>();
        List<Long> marker = new ArrayList<>();
        List<Long> prepare = new ArrayList<>();
        List<Long> flowControl = new ArrayList<>();
        try (Stream<String> lines = Files.lines(log)) {
            lines.forEach(l -> {
                Matcher m = LINE.matcher(l);
                if (m.find() && m.group(1).equals(table)) {
                    endOfCopy.add(Long.parseLong(m.group(2)));
                    marker.add(Long.parseLong(m.group(3)));
                    prepare.add(Long.parseLong(m.group(4)));
                    flowControl.add(m.group(5) == null ? 0 : Long.parseLong(m.group(5)) * 1000);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            return; // no breakdown: the table says so
        }
        result.setList(END_OF_COPY, endOfCopy);
        result.setList(MARKER, marker);
        result.setList(PREPARE, prepare);
        result.setList(FLOW_CONTROL, flowControl);
    }
}
