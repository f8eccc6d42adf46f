/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import dev.eosink.examples.Order;
import dev.eosink.examples.OrderGenerator;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes the first {@code n} orders of the generator into the topic at a steady rate (or as fast as the
 * broker takes them), in a thread of its own. Idempotent ({@code enable.idempotence}, {@code acks=all}): a retried
 * send is written once, so each order is in the topic exactly once and the end offsets are what {@link
 * OrderTopic#endOffsets} foretold. Its retries outlast a broker restart: sends wait up to {@code
 * delivery.timeout.ms} (two minutes) for the broker to come back.
 */
public final class OrderProducer implements AutoCloseable {

    private final OrderTopic topic;
    private final OrderGenerator generator;
    private final long from;
    private final long to;
    private final double perSecond;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean stopped;

    public OrderProducer(OrderTopic topic, OrderGenerator generator, long orders, double perSecond) {
        this(topic, generator, 0, orders, perSecond);
    }

    /** Sends the generator's orders {@code from} (inclusive) to {@code to} (exclusive), in order. */
    public OrderProducer(OrderTopic topic, OrderGenerator generator, long from, long to, double perSecond) {
        this.topic = topic;
        this.generator = generator;
        this.from = from;
        this.to = to;
        this.perSecond = perSecond;
        this.thread = new Thread(this::produce, "eosink-order-producer");
        this.thread.setDaemon(true);
    }

    public OrderProducer start() {
        thread.start();
        return this;
    }

    /** Orders the broker acknowledged so far. */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** Waits until every order is acknowledged; throws what failed the producer, if anything did. */
    public void await(long timeout, TimeUnit unit) throws InterruptedException {
        thread.join(unit.toMillis(timeout));
        if (thread.isAlive()) {
            throw new IllegalStateException("The producer of " + topic + " did not finish within " + timeout + " "
                    + unit + ": " + acknowledged() + " of " + (to - from) + " orders acknowledged");
        }
        failed().ifPresent(e -> {
            throw new IllegalStateException(
                    "The producer of " + topic + " failed after " + acknowledged() + " of " + (to - from) + " orders: "
                            + e.getMessage(),
                    e);
        });
    }

    public java.util.Optional<Exception> failed() {
        return java.util.Optional.ofNullable(failure.get());
    }

    /** Stops sending and waits (up to 30 s) for what was sent to be acknowledged or to fail. */
    @Override
    public void close() {
        stopped = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void produce() {
        Properties props = topic.clientProperties("eosink-order-producer");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "120000");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = from; i < to && !stopped && failure.get() == null; i++) {
                pace(start, i - from);
                Order o = generator.order(i);
                // The record's timestamp is the producer's clock, not the order's event time (fixed in the
                // past): retention and timestamp checks judge records by it. The job reads the event time
                // from the value.
                producer.send(
                        new ProducerRecord<>(
                                topic.name(), topic.partitionOf(o), OrderRecords.key(o), OrderRecords.value(o)),
                        (metadata, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            } else {
                                acknowledged.incrementAndGet();
                            }
                        });
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure.compareAndSet(null, e);
        }
    }

    /** Sleeps until order {@code i} is due at {@code perSecond} orders per second. */
    private void pace(long startNanos, long i) throws InterruptedException {
        long due = startNanos + (long) (i * 1e9 / perSecond);
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
