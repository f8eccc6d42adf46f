/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

/** Orders of one customer in one tumbling event-time window: a row of the window-totals table. */
public class WindowTotal {

    public int customer;
    public long windowStartMillis;
    public long windowEndMillis;
    public long orderCount;
    public long amountCents;

    public WindowTotal() {}

    public WindowTotal(int customer, long windowStartMillis, long windowEndMillis, long orderCount, long amountCents) {
        this.customer = customer;
        this.windowStartMillis = windowStartMillis;
        this.windowEndMillis = windowEndMillis;
        this.orderCount = orderCount;
        this.amountCents = amountCents;
    }

    @Override
    public String toString() {
        return "WindowTotal{customer " + customer + ", [" + windowStartMillis + ", " + windowEndMillis + "), "
                + orderCount + " orders, " + amountCents + " cents}";
    }
}
