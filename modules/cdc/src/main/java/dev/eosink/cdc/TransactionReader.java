/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The payload of an event of Debezium's transaction topic ({@code status}, {@code id}, {@code ts_ms}, and for END
 * {@code event_count} and {@code data_collections}) to a {@link TransactionBoundary}.
 */
final class TransactionReader {

    private TransactionReader() {}

    static TransactionBoundary read(JsonNode payload, String path) {
        String statusText = JsonFields.text(payload, "status", path);
        TransactionBoundary.Status status;
        try {
            status = TransactionBoundary.Status.valueOf(statusText);
        } catch (IllegalArgumentException e) {
            throw new ChangeEventFormatException(path + ".status", "'" + statusText + "' is neither BEGIN nor END", e);
        }
        String id = JsonFields.text(payload, "id", path);
        Instant time = Instant.ofEpochMilli(JsonFields.number(payload, "ts_ms", path));
        Optional<TransactionBoundary.Totals> totals =
                status == TransactionBoundary.Status.END ? Optional.of(totals(payload, path)) : Optional.empty();
        return new TransactionBoundary(status, id, time, totals);
    }

    private static TransactionBoundary.Totals totals(JsonNode payload, String path) {
        long eventCount = JsonFields.number(payload, "event_count", path);
        JsonNode collections = JsonFields.required(payload, "data_collections", path);
        if (!collections.isArray()) {
            throw new ChangeEventFormatException(
                    path + ".data_collections", "not an array but " + JsonFields.excerpt(collections));
        }
        Map<String, Long> perCollection = new LinkedHashMap<>();
        int index = 0;
        for (JsonNode collection : collections) {
            String collectionPath = path + ".data_collections[" + index++ + "]";
            String name = JsonFields.text(collection, "data_collection", collectionPath);
            if (perCollection.put(name, JsonFields.number(collection, "event_count", collectionPath)) != null) {
                throw new ChangeEventFormatException(collectionPath, "data collection " + name + " twice");
            }
        }
        return new TransactionBoundary.Totals(eventCount, perCollection);
    }
}
