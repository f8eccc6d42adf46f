/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements of one of the SQL scripts of {@code examples/sql/}, as Flink's SQL client reads them:
 * {@code --} comment lines left out, statements ended by a {@code ;} at the end of a line, and every
 * {@code ${name}} placeholder replaced by its value as a SQL string's content (quotes doubled). The
 * scripts hold no {@code ;} or {@code --} inside a string, which this relies on.
 */
final class SqlScript {

    private static final Pattern SET = Pattern.compile("SET\\s+'([^']+)'\\s*=\\s*'([^']*)'", Pattern.CASE_INSENSITIVE);
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)}");

    private final List<String> statements;

    private SqlScript(List<String> statements) {
        this.statements = List.copyOf(statements);
    }

    /** The script at {@code resource} of the class path, its placeholders filled from {@code values}. */
    static SqlScript load(String resource, Map<String, String> values) {
        String text;
        try (InputStream in = SqlScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no " + resource + " on the class path");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parse(text, values);
    }

    static SqlScript parse(String text, Map<String, String> values) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.strip().startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                String statement = current.toString().strip();
                statements.add(
                        fill(statement.substring(0, statement.length() - 1).strip(), values));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalArgumentException(
                    "the script ends inside a statement: " + current.toString().strip());
        }
        return new SqlScript(statements);
    }

    List<String> statements() {
        return statements;
    }

    /**
     * The key and value of a {@code SET 'key' = 'value'} statement, which only Flink's SQL client runs
     * (a table environment takes the pair into its configuration instead), or empty for another statement.
     */
    static Optional<Map.Entry<String, String>> set(String statement) {
        Matcher m = SET.matcher(statement);
        return m.matches() ? Optional.of(Map.entry(m.group(1), m.group(2))) : Optional.empty();
    }

    /**
     * {@code statement} with the value of option {@code key} of its {@code WITH (...)} clause replaced
     * by {@code value}, or the option left out when {@code value} is null.
     */
    static String withOption(String statement, String key, String value) {
        Pattern option = Pattern.compile("'" + Pattern.quote(key) + "'\\s*=\\s*'(?:[^']|'')*'(\\s*,)?");
        Matcher m = option.matcher(statement);
        if (!m.find()) {
            throw new IllegalArgumentException("no option '" + key + "' in: " + statement);
        }
        String replaced =
                value == null ? "" : "'" + key + "' = '" + literal(value) + "'" + (m.group(1) == null ? "" : ",");
        return statement.substring(0, m.start()) + replaced + statement.substring(m.end());
    }

    private static String fill(String statement, Map<String, String> values) {
        Matcher m = PLACEHOLDER.matcher(statement);
        StringBuilder filled = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("no value for ${" + m.group(1) + "} in: " + statement);
            }
            m.appendReplacement(filled, Matcher.quoteReplacement(literal(value)));
        }
        m.appendTail(filled);
        return filled.toString();
    }

    private static String literal(String value) {
        return value.replace("'", "''");
    }
}
