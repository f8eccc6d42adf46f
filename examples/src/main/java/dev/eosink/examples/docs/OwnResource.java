/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.LeftoverPolicy;
import dev.eosink.core.SinkSettings;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.examples.files.FileSink;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.nio.file.Path;
import java.time.Duration;

/** docs/extending.md's samples: a sink over one's own transactional system, and the file sink as a job uses it. */
final class OwnResource {

    private OwnResource() {}

    static <T> void ownResource(DataStream<T> stream, TransactionalDatabase<T> myResource) {
        // [START own-resource]
        SinkSettings settings = SinkSettings.defaults("events") // the sink id: stable across restarts
                .withClaimWait(Duration.ofSeconds(30))
                .withLeftoverPolicy(LeftoverPolicy.FAIL);
        stream.sinkTo(new ExactlyOnceSink<>(myResource, settings)); // myResource: your TransactionalDatabase<T>
        // [END own-resource]
    }

    static void fileSink(DataStream<Order> orders) {
        // [START file-sink]
        orders.sinkTo(FileSink.create(
                Path.of("/data/orders"), // holds in-progress/, pending/, committed/, locks/
                o -> o.id + "," + o.customer + "," + o.amount, // one line per record, no line break
                SinkSettings.defaults("orders-files")));
        // [END file-sink]
    }
}
