/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/** Key/value results of one run: written by {@link RunOne}, completed and read by the orchestrator. */
final class RunResult {

    private final Properties values = new Properties();

    void set(String key, Object value) {
        values.setProperty(key, String.valueOf(value));
    }

    void setList(String key, List<Long> list) {
        values.setProperty(key, list.stream().map(String::valueOf).collect(Collectors.joining(",")));
    }

    String get(String key) {
        return values.getProperty(key);
    }

    String get(String key, String defaultValue) {
        return values.getProperty(key, defaultValue);
    }

    long getLong(String key, long defaultValue) {
        String v = values.getProperty(key);
        return v == null || v.isEmpty() ? defaultValue : Long.parseLong(v);
    }

    double getDouble(String key, double defaultValue) {
        String v = values.getProperty(key);
        return v == null || v.isEmpty() ? defaultValue : Double.parseDouble(v);
    }

    List<Long> getList(String key) {
        List<Long> list = new ArrayList<>();
        String v = values.getProperty(key, "");
        for (String s : v.split(",")) {
            if (!s.isEmpty()) {
                list.add(Long.parseLong(s));
            }
        }
        return list;
    }

    boolean ok() {
        return "ok".equals(get("status"));
    }

    void write(Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            values.store(w, null);
        }
    }

    static RunResult read(Path file) throws IOException {
        RunResult r = new RunResult();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            r.values.load(in);
        }
        return r;
    }

    /**
     * The most telling message of a failure, on one line: the database's own error when the chain has
     * one (pgjdbc hides a batch's behind getNextException), else the root cause's.
     */
    static String reason(Throwable t) {
        Throwable root = t;
        java.sql.SQLException sql = null;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.sql.SQLException) {
                sql = (java.sql.SQLException) c;
            }
            root = c;
        }
        String message;
        if (sql != null) {
            java.sql.SQLException next = sql.getNextException();
            java.sql.SQLException shown = next != null ? next : sql;
            message = shown.getClass().getSimpleName() + ": " + shown.getMessage();
        } else {
            message = root.getClass().getSimpleName() + ": " + root.getMessage();
        }
        return oneLine(message);
    }

    /** The SQLSTATE of the database error in the chain, or null. */
    static String sqlState(Throwable t) {
        String state = null;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.sql.SQLException) {
                java.sql.SQLException e = (java.sql.SQLException) c;
                java.sql.SQLException next = e.getNextException();
                String s = next != null && next.getSQLState() != null ? next.getSQLState() : e.getSQLState();
                if (s != null) {
                    state = s;
                }
            }
        }
        return state;
    }

    static String oneLine(String message) {
        message = String.valueOf(message).replaceAll("\\s+", " ").trim();
        return message.length() > 300 ? message.substring(0, 297) + "..." : message;
    }
}
