/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc.flink;

import dev.eosink.cdc.CdcEvent;
import dev.eosink.cdc.ChangeEvent;
import dev.eosink.cdc.SourceChanges;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Flink's types for the streams of this module's values. Use them wherever such a stream is made: Flink's default
 * for these classes (Kryo) can neither copy nor read them back, which fails a job at its first record that crosses
 * from one operator to the next. They serialize a value by Java serialization and never copy one: every value here
 * is immutable.
 *
 * <pre>{@code
 * // the deserialization schema of a Kafka source of Debezium's records
 * public TypeInformation<CdcEvent> getProducedType() {
 *     return CdcTypes.events();
 * }
 * }</pre>
 *
 * {@link TransactionAssembler} declares its output as {@link #sourceChanges()} itself.
 */
@PublicEvolving
public final class CdcTypes {

    private CdcTypes() {}

    /** The type of a stream of {@link CdcEvent}s, change events and transaction boundaries alike. */
    public static TypeInformation<CdcEvent> events() {
        return new ImmutableValueTypeInfo<>(CdcEvent.class);
    }

    /** The type of a stream of {@link ChangeEvent}s. */
    public static TypeInformation<ChangeEvent> changeEvents() {
        return new ImmutableValueTypeInfo<>(ChangeEvent.class);
    }

    /** The type of a stream of {@link SourceChanges}: whole source transactions and single changes. */
    public static TypeInformation<SourceChanges> sourceChanges() {
        return new ImmutableValueTypeInfo<>(SourceChanges.class);
    }
}
