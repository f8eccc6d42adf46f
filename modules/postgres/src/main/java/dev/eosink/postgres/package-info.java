/**
 * The exactly-once sink into PostgreSQL: {@link dev.eosink.postgres.PostgresSink#builder()}, its
 * {@link dev.eosink.postgres.PostgresSinkBuilder}, and the options' types ({@link
 * dev.eosink.postgres.WriteMethod}, {@link dev.eosink.postgres.RowKindFunction}). These are {@code
 * @PublicEvolving}; everything else of the PostgreSQL sink is in {@code dev.eosink.postgres.internal},
 * which no other module imports.
 */
package dev.eosink.postgres;
