/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.replication.DebeziumDeserializationSchema;

import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

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
 * The topics Debezium writes a source's changes to, as its Kafka Connect runtime would: one per table
 * ({@code <prefix>.<schema>.<table>}) and the transaction topic ({@code <prefix>.transaction}), one partition
 * each (the transaction topic must have one: its order is the commit order), kept until deleted.
 */
public final class ChangeTopics {

    private final String bootstrap;
    private final String prefix;
    private final List<String> tables;

    /** @param tables the source tables, {@code schema.table} */
    public ChangeTopics(String bootstrap, String prefix, List<String> tables) {
        this.bootstrap = bootstrap;
        this.prefix = prefix;
        this.tables = List.copyOf(tables);
    }

    public String prefix() {
        return prefix;
    }

    /** Every topic: the tables', then the transaction topic. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        tables.forEach(t -> names.add(prefix + "." + t));
        names.add(prefix + ".transaction");
        return names;
    }

    public void create() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String name : names()) {
                topics.add(new NewTopic(name, Optional.of(1), Optional.empty())
                        .configs(Map.of("retention.ms", "-1", "retention.bytes", "-1")));
            }
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "Could not create the topics " + names() + " at " + bootstrap + ": " + e.getMessage()
                            + ". Remedy: check that the broker runs and this client may create topics",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the topics of " + prefix, e);
        }
    }

    /** Each topic's end offset now. */
    public Map<TopicPartition, Long> latestOffsets() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> all = new ArrayList<>();
            names().forEach(n -> all.add(new TopicPartition(n, 0)));
            return new HashMap<>(consumer.endOffsets(all, Duration.ofSeconds(60)));
        }
    }

    /** A source of every topic's events from the start up to {@code stoppingOffsets}, parsed. */
    public KafkaSource<CdcEvent> source(Map<TopicPartition, Long> stoppingOffsets, String groupId) {
        return KafkaSource.<CdcEvent>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(names())
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.offsets(stoppingOffsets))
                .setDeserializer(new DebeziumDeserializationSchema())
                .build();
    }

    @Override
    public String toString() {
        return "topics " + prefix + ".* at " + bootstrap;
    }
}
