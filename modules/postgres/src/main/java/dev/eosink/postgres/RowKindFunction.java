package dev.eosink.postgres;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Tells a changelog record's kind. With {@link PostgresSinkBuilder#upsert}, INSERT and UPDATE_AFTER
 * upsert the row, DELETE deletes it by key, UPDATE_BEFORE is ignored (the UPDATE_AFTER that follows
 * carries the new row). The PostgreSQL sink's name for {@link dev.eosink.jdbc.RowKindFunction}, which
 * the XA sink takes too.
 */
@PublicEvolving
@FunctionalInterface
public interface RowKindFunction<IN> extends dev.eosink.jdbc.RowKindFunction<IN> {}
