/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server version a test run asks for ({@code 14}, {@code 10.11}), and the check that the server which
 * started is of it. A run that asks for a version must fail, never pass or skip, on any other: a version
 * matrix that quietly ran the default server everywhere would report versions it never tested.
 *
 * <p>The asked version is a prefix of dotted numbers: {@code 14} accepts {@code 14.20} and {@code 14.20
 * (Debian 14.20-1)}, {@code 10.11} accepts {@code 10.11.14-MariaDB-0+deb12u2}, neither accepts {@code 140.1}.
 */
final class VersionRequirement {

    private static final Pattern DOTTED = Pattern.compile("\\d+(\\.\\d+)*");

    private final String setting;
    private final int[] parts;

    private VersionRequirement(String setting, int[] parts) {
        this.setting = setting;
        this.parts = parts;
    }

    /**
     * The requirement a setting states; empty when it is unset or blank (Maven passes an empty value when
     * the build was not asked for a version).
     *
     * @param setting the setting's name, for messages
     * @param value   its value, or null
     * @throws IllegalArgumentException if the value is not a dotted version such as {@code 14} or {@code 10.11}
     */
    static Optional<VersionRequirement> of(String setting, String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String trimmed = value.trim();
        if (!DOTTED.matcher(trimmed).matches()) {
            throw new IllegalArgumentException(setting + " must be a version such as 14 or 10.11, not '" + value + "'");
        }
        return Optional.of(new VersionRequirement(setting, parse(trimmed)));
    }

    /** Whether {@code serverVersion} (as the server reports it) starts with the asked numbers. */
    boolean accepts(String serverVersion) {
        Matcher m = DOTTED.matcher(serverVersion == null ? "" : serverVersion.trim());
        if (!m.lookingAt()) {
            return false;
        }
        int[] actual = parse(m.group());
        return actual.length >= parts.length && Arrays.equals(actual, 0, parts.length, parts, 0, parts.length);
    }

    /**
     * Fails unless the server is of the asked version.
     *
     * @param product       "PostgreSQL", "MariaDB": for the message
     * @param serverVersion what the server reports
     * @param server        which server it is (source, address), for the message
     * @param remedy        how to get a server of the asked version, for the message
     */
    void check(String product, String serverVersion, String server, String remedy) {
        if (!accepts(serverVersion)) {
            throw new IllegalStateException(product + " " + this + " was asked for (" + setting + "=" + this
                    + "), but the server that started is " + product + " " + serverVersion + ": " + server + ". "
                    + remedy);
        }
    }

    private static int[] parse(String dotted) {
        return Arrays.stream(dotted.split("\\.")).mapToInt(Integer::parseInt).toArray();
    }

    /** The asked version, as given ({@code 14}, {@code 10.11}). */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (int part : parts) {
            s.append(s.length() == 0 ? "" : ".").append(part);
        }
        return s.toString();
    }
}
