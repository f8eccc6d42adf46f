/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Debezium's JSON change events, parsed and typed: the input side of replication into this project's sinks.
 *
 * <p>{@link dev.eosink.cdc.DebeziumJsonParser} turns a Kafka record's key and value bytes, as Debezium's
 * {@code JsonConverter} wrote them (with or without {@code schemas.enable}), into a {@link dev.eosink.cdc.CdcEvent}:
 * a {@link dev.eosink.cdc.ChangeEvent} (a row inserted, read by a snapshot, updated, deleted, or a table truncated)
 * or a {@link dev.eosink.cdc.TransactionBoundary} (the BEGIN and END of a source transaction, from Debezium's
 * transaction topic). Every value type here is immutable and {@link java.io.Serializable}; what is optional in an
 * event is an {@link java.util.Optional} or a type of its own, never a null to guess about. A row's values are typed
 * by the embedded schema ({@link dev.eosink.cdc.ColumnType}, one per Debezium type, with the PostgreSQL column type
 * it maps to) or, without it, kept as the JSON scalars Debezium wrote ({@link dev.eosink.cdc.JsonScalar}), which
 * {@link dev.eosink.cdc.SchemalessValues} converts once the target column's type is known.
 *
 * <p>Nothing of Kafka's or Flink's runtime is used here (what runs in a Flink job, the assembly of whole source
 * transactions, is in {@code dev.eosink.cdc.flink}): the parser takes bytes and gives values, so a Kafka source's
 * deserializer, a test or a tool can call it alike. JSON is read with the Jackson that Flink ships shaded
 * ({@code org.apache.flink.shaded.jackson2}, part of {@code flink-core}, which is {@code provided}): a job's jar then
 * carries no second Jackson, whose version could clash with the one the user's own code or another connector
 * brings, and none of Jackson's types appears in this package's API, so the shading stays a detail.
 */
package dev.eosink.cdc;
