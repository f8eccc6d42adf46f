/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Tells a changelog record's kind. With {@link PostgresSinkBuilder#upsert}, INSERT and UPDATE_AFTER
 * upsert the row, DELETE and UPDATE_BEFORE delete it by key; the last record of a key wins, so an
 * UPDATE_BEFORE followed by its UPDATE_AFTER ends as the UPDATE_AFTER ({@link
 * dev.eosink.jdbc.RowKindFunction} says what a checkpoint between the two commits). The PostgreSQL
 * sink's name for {@link dev.eosink.jdbc.RowKindFunction}, which the XA sink takes too.
 */
@PublicEvolving
@FunctionalInterface
public interface RowKindFunction<IN> extends dev.eosink.jdbc.RowKindFunction<IN> {}
