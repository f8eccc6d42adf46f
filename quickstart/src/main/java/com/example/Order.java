package com.example;

import java.math.BigDecimal;
import java.time.Instant;

/** The job's record: a Flink POJO (public fields, a public no-argument constructor). */
public class Order {

    public long id;
    public String customer;
    public BigDecimal amount;
    public Instant ts;

    public Order() {}

    /** A made-up order, for the job's stand-in source. */
    public Order(long id) {
        this.id = id;
        this.customer = "customer-" + id % 100;
        this.amount = BigDecimal.valueOf(id % 10_000, 2);
        this.ts = Instant.now();
    }
}
