/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.spi.Wording;

/** A database's words for the writers and committers these tests build without a database. */
final class TestWording {

    static final Wording WORDS = new Wording(
            "its marker row is absent",
            "sql/03-prepared-transactions.sql",
            "the row locks of the rows it wrote",
            "rows of one transaction share one xmin",
            "insert its marker row again");

    private TestWording() {}
}
