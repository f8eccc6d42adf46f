/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import dev.eosink.examples.Order;
import dev.eosink.examples.OrderGenerator;

import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The topic of orders: its partitions, where each order goes, how far the job reads, and what it holds.
 *
 * <p>An order goes to the partition Kafka's default partitioner picks for its key (murmur2 of the
 * customer), chosen here explicitly so that the topic's end offsets after {@code n} orders are known
 * before the first is sent: the idempotent producer writes each order exactly once. The job reads up
 * to those offsets and ends, however it is interleaved with the producer.
 */
public final class OrderTopic {

    private final String bootstrap;
    private final String name;
    private final int partitions;

    public OrderTopic(String bootstrap, String name, int partitions) {
        this.bootstrap = bootstrap;
        this.name = name;
        this.partitions = partitions;
    }

    public String name() {
        return name;
    }

    public String bootstrapServers() {
        return bootstrap;
    }

    public int partitions() {
        return partitions;
    }

    /** Creates the topic (the broker's default replication, no retention limit); it must not exist yet. */
    public void create() {
        try (Admin admin = Admin.create(clientProperties("eosink-admin"))) {
            // Kept until deleted: a run's verdict reads the whole topic back, however long the run took.
            NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty())
                    .configs(Map.of("retention.ms", "-1", "retention.bytes", "-1"));
            admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "Could not create topic " + name + " with " + partitions + " partitions at "
                            + bootstrap + ": " + e.getMessage()
                            + ". Remedy: check that the broker runs and this client may create "
                            + "topics, or pick another topic name",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
    }

    /** The partition of an order: Kafka's default partitioner on its key. */
    public int partitionOf(Order o) {
        return Utils.toPositive(Utils.murmur2(OrderRecords.key(o))) % partitions;
    }

    /** The end offset of every partition once the first {@code orders} orders of {@code generator} are in. */
    public Map<TopicPartition, Long> endOffsets(OrderGenerator generator, long orders) {
        long[] counts = new long[partitions];
        for (long i = 0; i < orders; i++) {
            counts[partitionOf(generator.order(i))]++;
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            offsets.put(new TopicPartition(name, p), counts[p]);
        }
        return offsets;
    }

    /** The end offset of every partition now (the offsets the next records get). */
    public Map<TopicPartition, Long> latestOffsets() {
        Properties props = consumerProperties("eosink-offsets");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            return new HashMap<>(consumer.endOffsets(all(), Duration.ofSeconds(60)));
        }
    }

    /**
     * The job's source: every partition from the beginning up to {@code stoppingOffsets}, where it ends.
     * Its offsets are in Flink's checkpoints, restored with the sink's transactions from the same one.
     */
    public KafkaSource<Order> source(Map<TopicPartition, Long> stoppingOffsets, String groupId) {
        return KafkaSource.<Order>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(name)
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.offsets(stoppingOffsets))
                .setDeserializer(OrderRecords.deserializer())
                // Small fetches, so that a reader takes turns between its partitions: the watermark is the
                // least of theirs, and a whole partition fetched at once would hold it until the next one's turn.
                .setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "16384")
                .build();
    }

    /**
     * Every order in the topic, read back with a plain consumer from the beginning to the end offsets
     * of now: the truth the verdict compares the table with, independent of Flink.
     */
    public List<Order> readAll() {
        List<Order> orders = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties("eosink-verdict"))) {
            List<TopicPartition> all = all();
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Map<TopicPartition, Long> end = consumer.endOffsets(all, Duration.ofSeconds(60));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Reading topic " + name + " back did not reach its end offsets " + end + " within 120 s");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    orders.add(OrderRecords.order(r));
                }
            }
        }
        return orders;
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private List<TopicPartition> all() {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(name, p));
        }
        return all;
    }

    private Properties consumerProperties(String clientId) {
        Properties props = clientProperties(clientId);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        return props;
    }

    Properties clientProperties(String clientId) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-" + name);
        return props;
    }

    @Override
    public String toString() {
        return "topic " + name + " (" + partitions + " partitions) at " + bootstrap;
    }
}
