/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.JsonByteArray;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Debezium's embedded engine on a source PostgreSQL, its records sent to Kafka as its Kafka Connect runtime would
 * send them (topic, key and value as its JSON converter writes them, in its order): Debezium into Kafka without a
 * Connect cluster. The producer is idempotent with acks=all, so a record is in its topic once, in order.
 */
public final class CaptureToKafka implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final DebeziumEngine<ChangeEvent<byte[], byte[]>> engine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium"));
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong ends = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * Starts capturing {@code tables} ({@code schema.table}) of the source at {@code host:port}, database
     * {@code postgres}, as {@code user} (trust), into {@code topics}.
     */
    public CaptureToKafka(String bootstrap, ChangeTopics topics, int port, String user, java.util.List<String> tables) {
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(producerProps);
        Properties p = new Properties();
        p.setProperty("name", topics.prefix());
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("database.hostname", "localhost");
        p.setProperty("database.port", String.valueOf(port));
        p.setProperty("database.user", user);
        p.setProperty("database.dbname", "postgres");
        p.setProperty("topic.prefix", topics.prefix());
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", "eosink_demo");
        p.setProperty("slot.drop.on.stop", "true");
        p.setProperty("publication.name", "eosink_demo");
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", String.join(",", tables));
        p.setProperty("snapshot.mode", "initial");
        p.setProperty("provide.transaction.metadata", "true");
        p.setProperty("converter.schemas.enable", "true");
        this.engine = DebeziumEngine.create(JsonByteArray.class)
                .using(p)
                .using((success, message, error) -> {
                    if (!success) {
                        failure.compareAndSet(null, error != null ? error : new IllegalStateException(message));
                    }
                })
                .notifying(this::send)
                .build();
        executor.execute(engine);
    }

    private void send(ChangeEvent<byte[], byte[]> event) {
        producer.send(new ProducerRecord<>(event.destination(), event.key(), event.value()), (metadata, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
            }
        });
        sent.incrementAndGet();
        if (event.destination().endsWith(".transaction")
                && event.value() != null
                && new String(event.value(), StandardCharsets.UTF_8).contains("\"status\":\"END\"")) {
            ends.incrementAndGet();
        }
    }

    /** Records sent so far. */
    public long sent() {
        return sent.get();
    }

    /** Waits until {@code records} records were sent (the snapshot's, say), or fails. */
    public void awaitSent(long records, Duration timeout) throws InterruptedException {
        await(() -> sent.get() >= records, records + " records", timeout);
    }

    /** Waits until the END of {@code transactions} transactions was sent and every record is in Kafka. */
    public void awaitEnds(long transactions, Duration timeout) throws InterruptedException {
        await(() -> ends.get() >= transactions, "the END of " + transactions + " transactions", timeout);
        producer.flush();
        if (failure.get() != null) {
            throw new IllegalStateException("sending Debezium's records to Kafka failed", failure.get());
        }
    }

    private void await(java.util.function.BooleanSupplier done, String what, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (failure.get() != null) {
                throw new IllegalStateException("Debezium stopped before " + what, failure.get());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Debezium did not send " + what + " within " + timeout + " (" + sent.get() + " records sent)");
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() throws Exception {
        engine.close();
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
        producer.close(Duration.ofSeconds(30));
    }
}
