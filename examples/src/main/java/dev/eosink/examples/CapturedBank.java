/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.kafka.CaptureToKafka;
import dev.eosink.examples.kafka.ChangeTopics;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.SourceBank;

import org.apache.kafka.common.TopicPartition;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A source PostgreSQL (wal_level=logical) that ran {@link SourceBank}'s transactions, captured by Debezium's
 * embedded engine into Kafka topics ({@link ChangeTopics}), once: what a replication reads, as many times as it
 * likes, from the topics' start up to {@link #end}. The source stays up (and unchanged) until {@link #close()}, for
 * the verdicts to compare replicas with.
 *
 * <p>The steps are those of {@code CdcDemo.run} (its source's start, tables, accounts, topics and capture), which
 * could call this class instead.
 */
final class CapturedBank implements AutoCloseable {

    private static final Duration CAPTURE_TIMEOUT = Duration.ofMinutes(5);

    /** The source tables, {@code public.<table>}. */
    static final List<String> SOURCE_TABLES =
            SourceBank.TABLES.stream().map(t -> "public." + t).collect(Collectors.toList());

    final StandalonePostgres source;
    final ChangeTopics topics;
    /** Each topic's end offset once the capture ended. */
    final Map<TopicPartition, Long> end;

    final long transactions;
    /** The seconds from the capture's start until the last transaction's END was in Kafka. */
    final double seconds;

    private CapturedBank(
            StandalonePostgres source,
            ChangeTopics topics,
            Map<TopicPartition, Long> end,
            long transactions,
            double seconds) {
        this.source = source;
        this.topics = topics;
        this.end = end;
        this.transactions = transactions;
        this.seconds = seconds;
    }

    /** Starts a source, runs {@code transactions} of {@link SourceBank} on it and captures them into new topics. */
    static CapturedBank capture(String bootstrap, long transactions, String topicPrefix) throws Exception {
        return capture(bootstrap, startSource(), transactions, topicPrefix);
    }

    /** A new source server, empty: {@code wal_level=logical}, for Debezium. */
    static StandalonePostgres startSource() {
        return PostgresFixture.startNew(Map.of("wal_level", "logical"));
    }

    /** As {@link #capture(String, long, String)} on {@code source} ({@link #startSource()}), which this then owns. */
    static CapturedBank capture(String bootstrap, StandalonePostgres source, long transactions, String topicPrefix)
            throws Exception {
        try {
            System.out.println("source PostgreSQL (wal_level=logical): " + source.describe());
            try (Connection c = source.connect();
                    Statement s = c.createStatement()) {
                for (String ddl : SourceBank.ddl("public")) {
                    s.execute(ddl);
                }
                SourceBank.openAccounts(c);
            }
            ChangeTopics topics = new ChangeTopics(bootstrap, topicPrefix, SOURCE_TABLES);
            topics.create();
            long t0 = System.nanoTime();
            try (CaptureToKafka capture =
                    new CaptureToKafka(bootstrap, topics, source.port(), source.user(), SOURCE_TABLES)) {
                capture.awaitSent(SourceBank.ACCOUNTS, CAPTURE_TIMEOUT); // the snapshot: the slot exists
                try (Connection c = source.connect()) {
                    c.setAutoCommit(false);
                    for (long i = 0; i < transactions; i++) {
                        SourceBank.transaction(c, i);
                    }
                }
                capture.awaitEnds(transactions, CAPTURE_TIMEOUT);
                double seconds = (System.nanoTime() - t0) / 1e9;
                System.out.printf(
                        "%s: %,d source transactions captured by Debezium into Kafka (%,d records) in %.1f s%n",
                        topics, transactions, capture.sent(), seconds);
                return new CapturedBank(source, topics, topics.latestOffsets(), transactions, seconds);
            }
        } catch (Exception | Error e) {
            source.close();
            throw e;
        }
    }

    /** The records of the table topics: change events (the snapshot's reads included) and tombstones. */
    long tableRecords() {
        return end.entrySet().stream()
                .filter(e -> !e.getKey().topic().endsWith(".transaction"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** The records of the transaction topic: a BEGIN and an END per source transaction. */
    long transactionRecords() {
        return end.entrySet().stream()
                .filter(e -> e.getKey().topic().endsWith(".transaction"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    @Override
    public void close() {
        source.close();
    }
}
