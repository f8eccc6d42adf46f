/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples.docs;

import java.math.BigDecimal;
import java.time.Instant;

/** The samples' record type: a Flink POJO (public fields, a public no-argument constructor). */
public class Order {

    public long id;
    public String customer;
    public BigDecimal amount;
    public Instant ts;

    public Order() {}

    /** A made-up order, for the samples' sources. */
    public Order(long id) {
        this.id = id;
        this.customer = "customer-" + id % 100;
        this.amount = BigDecimal.valueOf(id % 10_000, 2);
        this.ts = Instant.now();
    }
}
