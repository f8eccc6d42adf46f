/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.cdc;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.JsonByteArray;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Debezium's embedded engine on one PostgreSQL, its records kept as the Kafka records its JSON converter would
 * write (topic, key bytes, value bytes), in the order it emitted them. Waits are for what arrived, never for time:
 * {@link #awaitRecords} returns as soon as the records satisfy the condition, and fails at once if the engine stops.
 */
public final class DebeziumCapture implements AutoCloseable {

    /** One record as the engine's converter wrote it. */
    public static final class Captured {
        /**
         * The Kafka topic the record would go to: {@code <topic.prefix>.<schema>.<table>}, or the transaction topic.
         */
        public final String topic;
        /** The key as JSON bytes; null for a record without one. */
        public final byte[] key;
        /** The value as JSON bytes; null for a tombstone. */
        public final byte[] value;

        Captured(String topic, byte[] key, byte[] value) {
            this.topic = topic;
            this.key = key;
            this.value = value;
        }

        @Override
        public String toString() {
            return topic + " " + (key == null ? "null" : new String(key, java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    private final String name;
    private final List<Captured> records = new ArrayList<>();
    private final DebeziumEngine<ChangeEvent<byte[], byte[]>> engine;
    private final ExecutorService executor;

    /** Null while the engine runs, or after it stopped cleanly. */
    private Throwable failure;

    private boolean stopped;

    /**
     * Starts an engine named {@code name} with the Debezium {@code properties} (connector, offsets, converter), on a
     * thread of its own; {@link #close()} stops it.
     */
    public DebeziumCapture(String name, Properties properties) {
        this.name = name;
        this.engine = DebeziumEngine.create(JsonByteArray.class)
                .using(properties)
                .using((success, message, error) -> stopped(success, message, error))
                .notifying(this::add)
                .build();
        this.executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-" + name));
        executor.execute(engine);
    }

    private synchronized void add(ChangeEvent<byte[], byte[]> event) {
        records.add(new Captured(event.destination(), event.key(), event.value()));
        notifyAll();
    }

    private synchronized void stopped(boolean success, String message, Throwable error) {
        stopped = true;
        if (!success) {
            failure = error != null ? error : new IllegalStateException(message);
        }
        notifyAll();
    }

    /** Waits until the records so far satisfy the condition; returns them. Fails if the engine stops or at timeout. */
    public synchronized List<Captured> awaitRecords(String what, Predicate<List<Captured>> condition, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(records)) {
            if (stopped) {
                throw new AssertionError("engine " + name + " stopped before " + what, failure);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("engine " + name + ": no " + what + " within " + timeout + "; "
                        + records.size() + " records so far, the last "
                        + (records.isEmpty() ? "none" : records.get(records.size() - 1)));
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return List.copyOf(records);
    }

    /**
     * Writes every record so far to {@code target/debezium-events/<name>.jsonl}, one line each (topic, key, value), so
     * that what the engine emitted can be read after the run.
     */
    public synchronized void writeRecords() throws IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("target", "debezium-events");
        java.nio.file.Files.createDirectories(dir);
        List<String> lines = new ArrayList<>();
        for (Captured record : records) {
            lines.add("{\"topic\": \"" + record.topic + "\", \"key\": " + text(record.key) + ", \"value\": "
                    + text(record.value) + "}");
        }
        java.nio.file.Files.write(dir.resolve(name + ".jsonl"), lines);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        writeRecords();
        engine.close();
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("engine " + name + " did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while engine " + name + " stopped", e);
        }
    }
}
