/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import java.math.BigDecimal;
import java.time.Instant;

/** The upsert sample's record type: the new balance of an account, or its deletion. */
public class Change {

    public long id;
    public BigDecimal balance;
    public Instant updated;
    public boolean deleted;

    public Change() {}
}
