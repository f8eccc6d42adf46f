/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.util.Objects;

/** One order: a Flink POJO (public fields, no-arg constructor). Amounts are in cents, so sums are exact. */
public class Order {

    public long orderId;
    public int customer;
    public long amountCents;
    public long eventTimeMillis;

    public Order() {}

    public Order(long orderId, int customer, long amountCents, long eventTimeMillis) {
        this.orderId = orderId;
        this.customer = customer;
        this.amountCents = amountCents;
        this.eventTimeMillis = eventTimeMillis;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Order)) {
            return false;
        }
        Order that = (Order) o;
        return orderId == that.orderId
                && customer == that.customer
                && amountCents == that.amountCents
                && eventTimeMillis == that.eventTimeMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(orderId, customer, amountCents, eventTimeMillis);
    }

    @Override
    public String toString() {
        return "Order{" + orderId + ", customer " + customer + ", " + amountCents + " cents, t=" + eventTimeMillis
                + "}";
    }
}
