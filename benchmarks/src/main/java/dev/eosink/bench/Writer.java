/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.bench.Workload.Case;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The ways of writing that the benchmark compares; {@link #id} is the name in the CSV. */
enum Writer {
    /** pgjdbc CopyManager, binary COPY, no Flink: the limit. */
    RAW_COPY("raw-copy", Case.APPEND, false, "raw COPY ... FROM STDIN (binary), pgjdbc CopyManager, no Flink"),
    /** eosink, writeMethod(COPY). */
    EO_COPY("eo-copy", Case.APPEND, true, "eosink exactly-once, writeMethod(COPY)"),
    /** eosink, writeMethod(BATCH). */
    EO_BATCH("eo-batch", Case.APPEND, true, "eosink exactly-once, writeMethod(BATCH)"),
    /** eosink's SQL connector, a table without a primary key: a TableEnvironment INSERT. */
    EO_SQL(
            "eo-sql",
            Case.APPEND,
            true,
            "eosink exactly-once, SQL: 'connector' = 'eosink-postgres' (COPY), INSERT INTO"),
    /** eosink, upsert("id"). */
    EO_UPSERT("eo-upsert", Case.UPSERT, true, "eosink exactly-once, upsert(\"id\")"),
    /** eosink's SQL connector, a table with PRIMARY KEY (id) NOT ENFORCED. */
    EO_SQL_UPSERT(
            "eo-sql-upsert",
            Case.UPSERT,
            true,
            "eosink exactly-once, SQL: 'connector' = 'eosink-postgres', PRIMARY KEY (id) NOT ENFORCED"),
    /** flink-connector-jdbc 4.0, exactly-once (XA, PGXADataSource). */
    PEER_EO_XA("peer-eo-xa", Case.APPEND, true, "flink-connector-jdbc 4.0.0-2.0 exactly-once (XA)"),
    /** flink-connector-jdbc 4.0, at-least-once, INSERT. */
    PEER_ALO("peer-alo", Case.APPEND, true, "flink-connector-jdbc 4.0.0-2.0 at-least-once, INSERT"),
    /** flink-connector-jdbc 4.0, at-least-once, INSERT ... ON CONFLICT (id) DO UPDATE. */
    PEER_ALO_UPSERT(
            "peer-alo-upsert",
            Case.UPSERT,
            true,
            "flink-connector-jdbc 4.0.0-2.0 at-least-once, INSERT ... ON CONFLICT (id) DO UPDATE"),
    /** MariaDB: JDBC batches by Connector/J's bulk protocol, no Flink: the limit there. */
    RAW_BULK("raw-bulk", Case.APPEND, false, "MariaDB: JDBC batches of 1000 by Connector/J's bulk protocol, no Flink"),
    /** eosink's XA sink into MariaDB. */
    EO_XA("eo-xa", Case.APPEND, true, "eosink exactly-once through XA (XaSink), MariaDB"),
    /** eosink's XA sink into MariaDB, upsert("id"). */
    EO_XA_UPSERT("eo-xa-upsert", Case.UPSERT, true, "eosink exactly-once through XA (XaSink), upsert(\"id\"), MariaDB"),
    /** flink-connector-jdbc 4.0's SQL connector, at-least-once, a table with PRIMARY KEY (id) NOT ENFORCED. */
    PEER_SQL_ALO_UPSERT(
            "peer-sql-alo-upsert",
            Case.UPSERT,
            true,
            "flink-connector-jdbc 4.0.0-2.0 at-least-once, SQL: 'connector' = 'jdbc', PRIMARY KEY (id) NOT ENFORCED "
                    + "(INSERT ... ON CONFLICT (id) DO UPDATE)");

    final String id;
    final Case workload;
    final boolean flink;
    final String description;

    Writer(String id, Case workload, boolean flink, String description) {
        this.id = id;
        this.workload = workload;
        this.flink = flink;
        this.description = description;
    }

    /**
     * The eosink DataStream sinks, which {@link TimingHook} times (the checkpoint cost). The SQL
     * connector builds its sink from the table's options, which take no hook: its writers are not timed.
     */
    boolean isEosink() {
        return this == EO_COPY || this == EO_BATCH || this == EO_UPSERT;
    }

    /** The writers that are a table of Flink SQL, written by a TableEnvironment INSERT ({@link SqlJob}). */
    boolean isSql() {
        return this == EO_SQL || this == EO_SQL_UPSERT || this == PEER_SQL_ALO_UPSERT;
    }

    /** The writers of {@code --database mariadb}; the peers build their MariaDB variant from the URL. */
    static List<Writer> mariaDb() {
        return List.of(RAW_BULK, EO_XA, PEER_EO_XA, PEER_ALO, EO_XA_UPSERT, PEER_ALO_UPSERT);
    }

    /** Whether the writer runs against {@code database}. */
    boolean runsOn(Database database) {
        return database == Database.MARIADB
                ? mariaDb().contains(this)
                : this != RAW_BULK && this != EO_XA && this != EO_XA_UPSERT;
    }

    static Writer byId(String id) {
        for (Writer w : values()) {
            if (w.id.equals(id)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown writer '" + id + "'; one of " + ids(Arrays.asList(values())));
    }

    static String ids(List<Writer> writers) {
        return writers.stream().map(w -> w.id).collect(Collectors.joining(", "));
    }
}
