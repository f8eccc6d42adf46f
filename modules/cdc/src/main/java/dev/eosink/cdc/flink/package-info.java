/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The events of {@link dev.eosink.cdc} in a Flink job: {@link dev.eosink.cdc.flink.TransactionAssembler}, which
 * makes whole source transactions of them in commit order ({@link dev.eosink.cdc.SourceChanges}), and
 * {@link dev.eosink.cdc.flink.CdcTypes}, the Flink types of their streams.
 *
 * <p>Apart from {@link dev.eosink.cdc} because it needs Flink's runtime (the DataStream API, keyed state, type
 * serializers), which the parsing does not: a deserializer, a test or a tool parses events without a Flink job.
 */
package dev.eosink.cdc.flink;
