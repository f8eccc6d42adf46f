/**
 * The exactly-once sink into PostgreSQL: {@link dev.eosink.postgres.PostgresSink#builder()}, its
 * {@link dev.eosink.postgres.PostgresSinkBuilder}, the options' types ({@link
 * dev.eosink.postgres.WriteMethod}, {@link dev.eosink.postgres.RowKindFunction}), and {@link
 * dev.eosink.postgres.PostgresOwnership} for operators' tools that look for a live job's ownership
 * guard. These are {@code @PublicEvolving}; so is the entry for Flink's {@code RowData} in {@code
 * dev.eosink.postgres.table}. The rest of the PostgreSQL sink is {@code @Internal}: {@code
 * dev.eosink.postgres.internal}, which no other module imports, and the COPY format and row encoders
 * of {@code copy} and {@code row}.
 */
package dev.eosink.postgres;
