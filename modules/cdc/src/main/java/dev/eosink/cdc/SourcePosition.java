/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and when a change happened at the source, from the event's {@code source} block and envelope. Immutable.
 *
 * <p>The connector's own position fields ({@link #fields()}: PostgreSQL's {@code lsn}, {@code txId},
 * {@code sequence}, {@code xmin}, the {@code snapshot} marker, ...) are kept as text, in the order the event gave
 * them: they differ per connector and serve messages and diagnosis, never ordering, which the transaction's orders
 * and the Kafka partition give.
 */
@PublicEvolving
public final class SourcePosition implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String connector;
    private final Instant sourceTime;
    /** Null when the envelope has no {@code ts_ms}. */
    private final Instant processedTime;

    private final Map<String, String> fields;

    /**
     * @param connector the source's {@code connector} ({@code postgresql}, {@code mysql}, ...)
     * @param sourceTime the source's {@code ts_ms}: when the change was made in the database (for a snapshot read:
     *     when it was read)
     * @param processedTime the envelope's {@code ts_ms}: when the connector processed the event
     * @param fields the connector's other source fields, as text, in the event's order
     */
    public SourcePosition(
            String connector, Instant sourceTime, Optional<Instant> processedTime, Map<String, String> fields) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.sourceTime = Objects.requireNonNull(sourceTime, "sourceTime");
        this.processedTime = processedTime.orElse(null);
        this.fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /**
     * The connector that captured the change, as the {@code source} block's {@code connector} names it ({@code
     * postgresql}, {@code mysql}, ...).
     */
    public String connector() {
        return connector;
    }

    /** The source's {@code ts_ms}, to the millisecond. */
    public Instant sourceTime() {
        return sourceTime;
    }

    /** The envelope's {@code ts_ms}, when the connector processed the event. */
    public Optional<Instant> processedTime() {
        return Optional.ofNullable(processedTime);
    }

    /** The connector's own position fields as text, in the event's order; unmodifiable. */
    public Map<String, String> fields() {
        return fields;
    }

    /** One of {@link #fields()}: {@code field("lsn")}. */
    public Optional<String> field(String name) {
        return Optional.ofNullable(fields.get(name));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourcePosition other
                && connector.equals(other.connector)
                && sourceTime.equals(other.sourceTime)
                && Objects.equals(processedTime, other.processedTime)
                && fields.equals(other.fields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(connector, sourceTime, processedTime, fields);
    }

    /** The connector, the source time and the position fields, for messages. */
    @Override
    public String toString() {
        return connector + " at " + sourceTime + " " + fields;
    }
}
