/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The records and paced sources that the tests of every database share: upserts and changelogs ({@link
 * dev.eosink.testing.records.UpsertRecords}), records a database refuses ({@link
 * dev.eosink.testing.records.DeadLetterRecords}), and ids paced by checkpoints ({@link
 * dev.eosink.testing.records.CheckpointPacedIds}) or by permits ({@link dev.eosink.testing.records.OneRecordPerPermit}).
 */
package dev.eosink.testing.records;
