/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What psql sends to the server for a script of {@code sql/} run as {@code psql -v name=value ... -f script}: the
 * tests run those scripts as written, through JDBC, without a psql binary (the embedded PostgreSQL has none).
 *
 * <p>It does what psql does with the part of its language the scripts use, and refuses the rest: the meta-commands
 * {@code \set name value}, {@code \if}, {@code \else} and {@code \endif} (each on a line of its own; a condition is
 * {@code :{?name}}, a variable or a boolean word), and in SQL the interpolations {@code :'name'} (a string literal,
 * as {@code PQescapeLiteral} quotes it), {@code :"name"} (an identifier, as {@code PQescapeIdentifier} quotes it)
 * and {@code :name} (the value as is); not inside string literals, quoted identifiers, dollar quotes or comments,
 * and not in a {@code ::} cast. An undefined variable is left as written, as psql leaves it.
 */
public final class PsqlScript {

    private static final Pattern META = Pattern.compile("^\\s*\\\\(\\w+)\\s*(.*?)\\s*$");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");

    private PsqlScript() {}

    /** The SQL psql sends for the script at {@code path} with {@code variables} given by {@code -v}. */
    public static String render(Path path, Map<String, String> variables) throws IOException {
        return render(Files.readString(path, StandardCharsets.UTF_8), variables);
    }

    /** The SQL psql sends for {@code script} with {@code variables} given by {@code -v}. */
    public static String render(String script, Map<String, String> variables) {
        Map<String, String> vars = new HashMap<>(variables);
        // Per open \if: whether its active branch is the one being read, and whether the enclosing ones are active.
        Deque<boolean[]> branches = new ArrayDeque<>();
        StringBuilder sql = new StringBuilder();
        Lexer lexer = new Lexer();
        int lineNo = 0;
        for (String line : script.split("\n", -1)) {
            lineNo++;
            boolean active = branches.stream().allMatch(b -> b[0]);
            Matcher meta = META.matcher(line);
            if (lexer.atStatementLevel() && meta.matches()) {
                String command = meta.group(1);
                String argument = meta.group(2);
                switch (command) {
                    case "if":
                        branches.push(new boolean[] {active && condition(argument, vars, lineNo), active});
                        break;
                    case "else":
                        boolean[] open = branches.peek();
                        if (open == null) {
                            throw new IllegalArgumentException("line " + lineNo + ": \\else without \\if");
                        }
                        open[0] = open[1] && !open[0];
                        break;
                    case "endif":
                        if (branches.poll() == null) {
                            throw new IllegalArgumentException("line " + lineNo + ": \\endif without \\if");
                        }
                        break;
                    case "set":
                        if (active) {
                            String[] parts = argument.split("\\s+", 2);
                            if (!NAME.matcher(parts[0]).matches()) {
                                throw new IllegalArgumentException("line " + lineNo + ": \\set of no name: " + line);
                            }
                            String value = parts.length < 2 ? "" : parts[1];
                            if (value.contains(" ") || value.contains("'") || value.contains(":")) {
                                throw new IllegalArgumentException("line " + lineNo
                                        + ": a \\set value of one plain word is all this reproduces: " + line);
                            }
                            vars.put(parts[0], value);
                        }
                        break;
                    default:
                        throw new IllegalArgumentException(
                                "line " + lineNo + ": \\" + command + " is not reproduced here: " + line);
                }
                continue;
            }
            if (active) {
                sql.append(lexer.interpolate(line, vars, lineNo)).append('\n');
            }
        }
        if (!branches.isEmpty()) {
            throw new IllegalArgumentException("an \\if without \\endif");
        }
        return sql.toString();
    }

    private static boolean condition(String argument, Map<String, String> vars, int lineNo) {
        Matcher defined = Pattern.compile(":\\{\\?([A-Za-z0-9_]+)}").matcher(argument);
        if (defined.matches()) {
            return vars.containsKey(defined.group(1));
        }
        String word = argument;
        if (argument.startsWith(":") && NAME.matcher(argument.substring(1)).matches()) {
            word = vars.get(argument.substring(1));
            if (word == null) {
                throw new IllegalArgumentException("line " + lineNo + ": \\if of an undefined variable: " + argument);
            }
        }
        switch (word.toLowerCase(Locale.ROOT)) {
            case "true":
            case "on":
            case "yes":
            case "1":
                return true;
            case "false":
            case "off":
            case "no":
            case "0":
                return false;
            default:
                throw new IllegalArgumentException("line " + lineNo + ": \\if of no boolean: " + argument);
        }
    }

    /** psql's {@code PQescapeLiteral}: quotes doubled, and backslashes doubled after an {@code E} if any. */
    static String literal(String value) {
        String quoted = "'" + value.replace("'", "''").replace("\\", "\\\\") + "'";
        return value.contains("\\") ? " E" + quoted : quoted;
    }

    /** psql's {@code PQescapeIdentifier}: double quotes doubled. */
    static String identifier(String value) {
        return "\"" + value.replace("\"", "\"\"") + "\"";
    }

    /** SQL text, its state carried from line to line: where psql substitutes variables. */
    private static final class Lexer {
        private char quote; // 0, '\'' or '"'
        private int blockComments;
        private String dollarTag; // inside $tag$ ... $tag$, else null

        boolean atStatementLevel() {
            return quote == 0 && blockComments == 0 && dollarTag == null;
        }

        String interpolate(String line, Map<String, String> vars, int lineNo) {
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (i < line.length()) {
                char c = line.charAt(i);
                if (quote != 0) {
                    out.append(c);
                    if (c == quote) {
                        if (i + 1 < line.length() && line.charAt(i + 1) == quote) {
                            out.append(quote);
                            i++;
                        } else {
                            quote = 0;
                        }
                    }
                    i++;
                } else if (blockComments > 0) {
                    if (line.startsWith("*/", i)) {
                        blockComments--;
                        out.append("*/");
                        i += 2;
                    } else if (line.startsWith("/*", i)) {
                        blockComments++;
                        out.append("/*");
                        i += 2;
                    } else {
                        out.append(c);
                        i++;
                    }
                } else if (dollarTag != null) {
                    if (line.startsWith(dollarTag, i)) {
                        out.append(dollarTag);
                        i += dollarTag.length();
                        dollarTag = null;
                    } else {
                        out.append(c);
                        i++;
                    }
                } else if (line.startsWith("--", i)) {
                    out.append(line, i, line.length());
                    i = line.length();
                } else if (line.startsWith("/*", i)) {
                    blockComments++;
                    out.append("/*");
                    i += 2;
                } else if (c == '\'' || c == '"') {
                    quote = c;
                    out.append(c);
                    i++;
                } else if (c == '$' && dollarTagAt(line, i) != null) {
                    dollarTag = dollarTagAt(line, i);
                    out.append(dollarTag);
                    i += dollarTag.length();
                } else if (c == ':' && line.startsWith("::", i)) {
                    out.append("::");
                    i += 2;
                } else if (c == ':') {
                    i = variable(line, i, vars, out);
                } else if (c == '\\') {
                    throw new IllegalArgumentException(
                            "line " + lineNo + ": a meta-command within a line is not reproduced here: " + line);
                } else {
                    out.append(c);
                    i++;
                }
            }
            return out.toString();
        }

        /** Appends the interpolation at {@code line[i] == ':'}, or the colon; returns the index after it. */
        private static int variable(String line, int i, Map<String, String> vars, StringBuilder out) {
            char kind = i + 1 < line.length() ? line.charAt(i + 1) : 0;
            if (kind == '\'' || kind == '"') {
                int end = line.indexOf(kind, i + 2);
                if (end > i + 2 && NAME.matcher(line.substring(i + 2, end)).matches()) {
                    String value = vars.get(line.substring(i + 2, end));
                    if (value != null) {
                        out.append(kind == '\'' ? literal(value) : identifier(value));
                        return end + 1;
                    }
                    out.append(line, i, end + 1); // undefined: psql leaves it as written
                    return end + 1;
                }
            } else {
                Matcher name = NAME.matcher(line).region(i + 1, line.length());
                if (name.lookingAt()) {
                    String value = vars.get(name.group());
                    out.append(value != null ? value : line.substring(i, name.end()));
                    return name.end();
                }
            }
            out.append(':');
            return i + 1;
        }

        private static String dollarTagAt(String line, int i) {
            Matcher tag = Pattern.compile("\\$([A-Za-z_][A-Za-z0-9_]*)?\\$")
                    .matcher(line)
                    .region(i, line.length());
            if (!tag.lookingAt()) {
                return null;
            }
            // $1 is a parameter, not a dollar quote; a tag does not follow a letter or digit.
            return i > 0 && Character.isLetterOrDigit(line.charAt(i - 1)) ? null : tag.group();
        }
    }
}
