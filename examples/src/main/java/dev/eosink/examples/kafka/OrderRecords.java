/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import dev.eosink.examples.Order;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.nio.ByteBuffer;

/**
 * How an order travels in the topic: the customer as the key (4 bytes), and a fixed 28-byte value of
 * order id, customer, amount in cents and event time (big-endian longs and an int). Small and exact:
 * the topic's contents decode to the very orders the generator made.
 */
public final class OrderRecords {

    static final int VALUE_BYTES = 8 + 4 + 8 + 8;

    private OrderRecords() {}

    public static byte[] key(Order o) {
        return ByteBuffer.allocate(4).putInt(o.customer).array();
    }

    public static byte[] value(Order o) {
        return ByteBuffer.allocate(VALUE_BYTES)
                .putLong(o.orderId)
                .putInt(o.customer)
                .putLong(o.amountCents)
                .putLong(o.eventTimeMillis)
                .array();
    }

    /** Decodes a value of {@link #value(Order)}; anything else is refused, naming the record. */
    public static Order order(ConsumerRecord<byte[], byte[]> record) {
        byte[] v = record.value();
        if (v == null || v.length != VALUE_BYTES) {
            throw new IllegalArgumentException(
                    "record " + record.topic() + "-" + record.partition() + "@" + record.offset() + " is not an order: "
                            + (v == null ? "no value" : v.length + " bytes, not " + VALUE_BYTES));
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        return new Order(b.getLong(), b.getInt(), b.getLong(), b.getLong());
    }

    /** The Kafka source's deserializer: one order per record. */
    public static KafkaRecordDeserializationSchema<Order> deserializer() {
        return new Deserializer();
    }

    private static final class Deserializer implements KafkaRecordDeserializationSchema<Order> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Order> out) {
            out.collect(order(record));
        }

        @Override
        public TypeInformation<Order> getProducedType() {
            return TypeInformation.of(Order.class);
        }
    }
}
