/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.kafka;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KafkaBrokerTest {

    /**
     * One id in 64 of 16 random bytes in URL-safe Base64 begins with '-', which Kafka's storage tool reads
     * as an option: the broker then failed to start one run in 64. In 10,000 ids, the old way made one
     * such id with a probability of 1 - (63/64)^10000, indistinguishable from 1.
     */
    @Test
    void aClusterIdNeverBeginsWithADash() {
        for (int i = 0; i < 10_000; i++) {
            String id = KafkaBroker.clusterId();
            assertThat(id).hasSize(22).doesNotStartWith("-").matches("[A-Za-z0-9_-]+");
        }
    }
}
