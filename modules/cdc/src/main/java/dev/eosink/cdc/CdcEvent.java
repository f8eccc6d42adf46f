/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;

/**
 * One event Debezium wrote: a change to a table's rows ({@link ChangeEvent}), or the start or end of a source
 * transaction ({@link TransactionBoundary}). Immutable and serializable, as every type it holds.
 */
@PublicEvolving
public sealed interface CdcEvent extends Serializable permits ChangeEvent, TransactionBoundary {}
