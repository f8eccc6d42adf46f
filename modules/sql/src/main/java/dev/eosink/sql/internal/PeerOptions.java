/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.sql.JdbcTableOptions;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of flink-connector-jdbc ({@code 'connector' = 'jdbc'}) in a table of these connectors, so
 * that a table written for it, with only the connector changed, is either planned or refused with what
 * to write instead. Those whose meaning carries over are taken as they are: {@code url}, {@code
 * table-name}, {@code username}, {@code password}, {@code sink.parallelism}, {@code driver} (when it
 * names the driver of the URL's scheme) and {@code sink.buffer-flush.max-rows} (as {@code
 * sink.batch-size}). The others are refused, each named with its counterpart or why none is needed;
 * docs/migrating-from-jdbc.md holds the same mapping.
 */
@Internal
public final class PeerOptions {

    private PeerOptions() {}

    /** The peer's name of {@code sink.batch-size}, a fallback key of {@link JdbcTableOptions#BATCH_SIZE}. */
    static final String BUFFER_FLUSH_MAX_ROWS = "sink.buffer-flush.max-rows";

    private static final String SOURCE = "a source's option: this connector only writes. Read the database table "
            + "through a second Flink table with 'connector' = 'jdbc', and keep this option there";

    /** The peer's options that these connectors refuse, each with what to write instead. */
    private static final Map<String, String> REFUSED = refused();

    private static Map<String, String> refused() {
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(
                "sink.buffer-flush.interval",
                "not needed: rows go to the database in batches of 'sink.batch-size', the rest at each checkpoint "
                        + "barrier, and become visible all at once when the checkpoint completes, so the checkpoint "
                        + "interval ('execution.checkpointing.interval') sets how soon rows show. Remove it");
        refused.put(
                "sink.max-retries",
                "not needed: a failed write fails the task, and Flink's restart strategy "
                        + "('restart-strategy.*') writes the checkpoint's rows again in a new transaction, "
                        + "so none is written twice; a commit whose outcome is unknown is retried by the sink "
                        + "('sink.commit-retries'). Remove it");
        refused.put(
                "connection.max-retry-timeout",
                "use 'sink.network-timeout' (how long any call into the driver may take); a connect timeout goes in "
                        + "the URL (connectTimeout)");
        refused.put("compatible-mode", "not needed: the URL's scheme picks the database. Remove it");
        refused.put("filter.handling.policy", SOURCE);
        return refused;
    }

    private static final List<String> SOURCE_PREFIXES = List.of("scan.", "lookup.");

    /** The JDBC driver class of each URL scheme the sinks speak, as the peer's {@code driver} names it. */
    private static final Map<String, Set<String>> DRIVERS = Map.of(
            "postgresql", Set.of("org.postgresql.Driver"),
            "mariadb", Set.of("org.mariadb.jdbc.Driver"),
            "mysql", Set.of("com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver"),
            "firebirdsql", Set.of("org.firebirdsql.jdbc.FBDriver"));

    /**
     * What is wrong with the table's options as given, for a user of flink-connector-jdbc: a first line
     * that says what the lines after it are, then one line for
     * each of its options that these connectors refuse, with the remedy, and, when the table has any such
     * option or no {@code sink.id}, one for each required option missing, {@code sink.id} with what it
     * is. Empty when there is nothing to say.
     */
    static List<String> problems(Map<String, String> given) {
        List<String> problems = new ArrayList<>();
        for (String key : new TreeSet<>(given.keySet())) {
            String remedy = REFUSED.get(key);
            if (remedy == null && SOURCE_PREFIXES.stream().anyMatch(key::startsWith)) {
                remedy = SOURCE;
            }
            if (remedy != null) {
                problems.add("'" + key + "': " + remedy + ".");
            }
        }
        String maxRows = given.get(BUFFER_FLUSH_MAX_ROWS);
        if (maxRows != null) {
            if (given.containsKey(JdbcTableOptions.BATCH_SIZE.key())) {
                problems.add("'" + BUFFER_FLUSH_MAX_ROWS + "' and '" + JdbcTableOptions.BATCH_SIZE.key()
                        + "' are one option here (rows per batch sent into the open transaction): give only '"
                        + JdbcTableOptions.BATCH_SIZE.key() + "'.");
            } else if (maxRows.trim().equals("0")) {
                problems.add("'" + BUFFER_FLUSH_MAX_ROWS + "' = '0' (no flush by row count) has no counterpart: rows "
                        + "always go in batches of at most '" + JdbcTableOptions.BATCH_SIZE.key()
                        + "' (default " + JdbcTableOptions.BATCH_SIZE.defaultValue() + ", at least 1), and the rest "
                        + "at each checkpoint barrier. Remove it, or give a row count.");
            }
        }
        String driver = given.get(JdbcTableOptions.DRIVER.key());
        String url = given.get(JdbcTableOptions.URL.key());
        if (driver != null && url != null) {
            driverProblem(driver.trim(), url).ifPresent(problems::add);
        }
        boolean noSinkId = !given.containsKey(JdbcTableOptions.SINK_ID.key());
        if (problems.isEmpty() && !noSinkId) {
            return problems;
        }
        if (!problems.isEmpty()) {
            problems.add(
                    0,
                    "it has options of flink-connector-jdbc ('connector' = 'jdbc') that it takes otherwise "
                            + "(docs/migrating-from-jdbc.md maps each):");
        } else {
            problems.add("required options are missing:");
        }
        // Said here rather than by Flink's list of missing options, which names them only.
        for (String required : List.of(JdbcTableOptions.URL.key(), JdbcTableOptions.TABLE_NAME.key())) {
            if (!given.containsKey(required)) {
                problems.add("'" + required + "' is missing, and required.");
            }
        }
        if (noSinkId) {
            problems.add("'" + JdbcTableOptions.SINK_ID.key() + "' is missing, and required here (flink-connector-jdbc "
                    + "has no counterpart): a stable name for this sink, such as the table's, that its transaction "
                    + "ids carry; keep it across restarts and upgrades of the job, and give every sink writing to the "
                    + "same database its own.");
        }
        return problems;
    }

    private static Optional<String> driverProblem(String driver, String url) {
        String scheme = url.startsWith("jdbc:") && url.indexOf(':', 5) > 5 ? url.substring(5, url.indexOf(':', 5)) : "";
        Set<String> expected = DRIVERS.get(scheme);
        if (expected != null && expected.contains(driver)) {
            return Optional.empty();
        }
        return Optional.of("'" + JdbcTableOptions.DRIVER.key() + "' = '" + driver + "': the sink uses the "
                + "driver of the URL's scheme"
                + (expected == null
                        ? ""
                        : " (jdbc:" + scheme + ": " + String.join(" or ", new TreeSet<>(expected)) + ")")
                + ", whose jar the job brings. Remove 'driver', or name that driver.");
    }
}
