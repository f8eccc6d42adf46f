/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** The tool's output forms: times, ages, and aligned tables. */
final class Text {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private Text() {}

    static String time(Instant t) {
        return TIME.format(t.truncatedTo(ChronoUnit.SECONDS));
    }

    static String age(Instant since, Instant now) {
        Duration d = Duration.between(since, now);
        if (d.isNegative()) {
            d = Duration.ZERO;
        }
        long s = d.getSeconds();
        if (s < 60) {
            return String.format("%.1f s", d.toMillis() / 1000.0);
        }
        if (s < 3600) {
            return (s / 60) + " min " + (s % 60) + " s";
        }
        if (s < 86_400) {
            return (s / 3600) + " h " + (s % 3600 / 60) + " min";
        }
        return (s / 86_400) + " d " + (s % 86_400 / 3600) + " h";
    }

    /** Rows as columns padded to their widest cell, each line indented by two spaces. */
    static List<String> table(List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < columns; i++) {
                line.append(i == columns - 1 ? row[i] : String.format("%-" + width[i] + "s  ", row[i]));
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }
}
