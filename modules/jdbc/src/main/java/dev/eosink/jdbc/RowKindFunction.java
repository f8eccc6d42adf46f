package dev.eosink.jdbc;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.types.RowKind;

import java.io.Serializable;

/**
 * Tells a changelog record's kind, for a sink that upserts by key ({@code upsert(keys)} of {@code
 * PostgresSink.builder()} and {@code XaSink.builder()}): INSERT and UPDATE_AFTER upsert the row,
 * DELETE deletes it by key, UPDATE_BEFORE is ignored (the UPDATE_AFTER that follows carries the new
 * row).
 */
@PublicEvolving
@FunctionalInterface
public interface RowKindFunction<IN> extends Serializable {
    RowKind kindOf(IN record);
}
