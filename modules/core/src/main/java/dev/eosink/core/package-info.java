/**
 * The database-neutral exactly-once sink: {@link dev.eosink.core.ExactlyOnceSink}, which a database
 * module's builder makes, its options ({@link dev.eosink.core.SinkSettings} and the {@link
 * dev.eosink.core.LeftoverPolicy} and {@link dev.eosink.core.RewindPolicy} in it), the names of its
 * transactions ({@link dev.eosink.core.TransactionId}) and its failures ({@link
 * dev.eosink.core.SinkException}).
 *
 * <p>The annotations mean what Flink's do. {@code @PublicEvolving}: for jobs and tools to import, with
 * stable behaviour, while signatures may still change between releases. {@code @Internal}: public
 * only because another package or module of this project needs it; no promise at all. Every type
 * here is {@code @PublicEvolving}. The name layout of {@link dev.eosink.core.TransactionId} is held
 * to more than that: names live in the database and in checkpoints, so a new layout gets a new
 * prefix. This package imports no JDBC type and no database module (the architecture test checks it).
 */
package dev.eosink.core;
