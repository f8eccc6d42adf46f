/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.Optional;

/**
 * Reads the fields of an event's JSON tree, each failure a {@link ChangeEventFormatException} naming the field's
 * path and showing at most an excerpt of what it found.
 */
final class JsonFields {

    /** How much of an offending value a message shows: enough to recognise it, never a whole row. */
    private static final int EXCERPT = 40;

    private JsonFields() {}

    /** The JSON text of a node, cut to a short excerpt. */
    static String excerpt(JsonNode node) {
        String text = node.toString();
        return text.length() > EXCERPT ? text.substring(0, EXCERPT) + "... (" + text.length() + " chars)" : text;
    }

    /** The field, or empty when it is absent or JSON null. */
    static Optional<JsonNode> optional(JsonNode parent, String field) {
        JsonNode node = parent.get(field);
        return node == null || node.isNull() ? Optional.empty() : Optional.of(node);
    }

    /** The field, which must be present and not null. */
    static JsonNode required(JsonNode parent, String field, String path) {
        return optional(parent, field)
                .orElseThrow(() -> new ChangeEventFormatException(path + "." + field, "missing (or null)"));
    }

    /** A required object field. */
    static JsonNode object(JsonNode parent, String field, String path) {
        JsonNode node = required(parent, field, path);
        if (!node.isObject()) {
            throw new ChangeEventFormatException(path + "." + field, "not a JSON object but " + excerpt(node));
        }
        return node;
    }

    /** A required text field. */
    static String text(JsonNode parent, String field, String path) {
        JsonNode node = required(parent, field, path);
        if (!node.isTextual()) {
            throw new ChangeEventFormatException(path + "." + field, "not a JSON string but " + excerpt(node));
        }
        return node.textValue();
    }

    /** An optional text field. */
    static Optional<String> optionalText(JsonNode parent, String field, String path) {
        Optional<JsonNode> node = optional(parent, field);
        if (node.isPresent() && !node.get().isTextual()) {
            throw new ChangeEventFormatException(path + "." + field, "not a JSON string but " + excerpt(node.get()));
        }
        return node.map(JsonNode::textValue);
    }

    /** A required whole-number field that fits a long. */
    static long number(JsonNode parent, String field, String path) {
        return wholeNumber(required(parent, field, path), path + "." + field);
    }

    /** A node that must be a whole number that fits a long. */
    static long wholeNumber(JsonNode node, String path) {
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw new ChangeEventFormatException(path, "not a whole number of 64 bits but " + excerpt(node));
        }
        return node.longValue();
    }

    /** A field's value as text: a string's content, any other node's JSON. */
    static String asText(JsonNode node) {
        return node.isTextual() ? node.textValue() : node.toString();
    }
}
