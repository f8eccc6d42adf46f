/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.Objects;

/**
 * A value of an event without an embedded schema, kept as Debezium wrote it in JSON: its {@link Kind} and its text
 * (a number's exact literal, a string's content, {@code true} or {@code false}, or for an object or array its JSON
 * text). What it means depends on the target column's type: {@link SchemalessValues} converts it. Immutable.
 */
@PublicEvolving
public final class JsonScalar implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The JSON kind of a value. */
    @PublicEvolving
    public enum Kind {
        /** A JSON string; the text is its content, unescaped. */
        STRING,
        /** A JSON number; the text is its exact literal. */
        NUMBER,
        /** A JSON {@code true} or {@code false}; the text is that word. */
        BOOLEAN,
        /** An object or array, such as a {@code VariableScaleDecimal} struct; the text is its JSON. */
        STRUCTURE
    }

    private final Kind kind;
    private final String text;

    /**
     * A value of {@code kind} with {@code text} as {@link Kind} says it is written. Throws {@link NullPointerException}
     * for a null argument.
     */
    public JsonScalar(Kind kind, String text) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.text = Objects.requireNonNull(text, "text");
    }

    /** The JSON kind of the value, which says how to read {@link #text()}. */
    public Kind kind() {
        return kind;
    }

    /** The literal (NUMBER, BOOLEAN), the content (STRING) or the JSON text (STRUCTURE). */
    public String text() {
        return text;
    }

    /** A NUMBER's exact value, its scale as written ({@code 1.50} has scale 2). */
    public BigDecimal number() {
        if (kind != Kind.NUMBER) {
            throw new IllegalStateException("not a JSON number but a " + kind + ": " + this);
        }
        return new BigDecimal(text);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonScalar other && kind == other.kind && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, text);
    }

    /** The value as JSON would show it, strings quoted; long ones cut, for messages. */
    @Override
    public String toString() {
        String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        return kind == Kind.STRING ? '"' + shown + '"' : shown;
    }
}
