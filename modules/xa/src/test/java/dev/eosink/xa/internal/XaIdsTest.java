/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.core.TransactionId;

import org.junit.jupiter.api.Test;

import javax.transaction.xa.Xid;

import static org.assertj.core.api.Assertions.assertThat;

class XaIdsTest {

    @Test
    void roundTripsWithinXasLimitsForTheLongestNames() {
        String longest = "s".repeat(100);
        TransactionId id = new TransactionId(longest, Integer.MAX_VALUE, Long.MAX_VALUE, "zzzzzzzzzzzz");
        Xid xid = XaIds.toXid(id);
        assertThat(xid.getFormatId()).isEqualTo(XaIds.FORMAT_ID);
        assertThat(xid.getGlobalTransactionId().length).isLessThanOrEqualTo(64);
        assertThat(xid.getBranchQualifier().length).isLessThanOrEqualTo(64);
        assertThat(XaIds.parse(xid, longest)).contains(id);
    }

    @Test
    void parsesBackWhatRecoverReturnsAsAnotherXidObject() {
        TransactionId id = new TransactionId("orders", 3, 42, "abcd1234");
        Xid xid = XaIds.toXid(id);
        Xid recovered = new XaIds.XaXid(xid.getFormatId(), xid.getGlobalTransactionId(), xid.getBranchQualifier());
        assertThat(XaIds.parse(recovered, "orders")).contains(id);
        assertThat(new String(xid.getGlobalTransactionId()))
                .isEqualTo("e1/" + XaIds.sinkHash("orders") + "/3/42/abcd1234");
        assertThat(new String(xid.getBranchQualifier())).isEqualTo("orders");
    }

    @Test
    void neverClaimsAnotherSinksOrAnotherToolsBranch() {
        Xid other = XaIds.toXid(new TransactionId("orders-b", 0, 1, "aaaaaaaa"));
        assertThat(XaIds.parse(other, "orders")).isEmpty();
        // Two long sink ids with the same first 47 characters: the bqual carries the hash, so they differ.
        String a = "x".repeat(60) + "a";
        String b = "x".repeat(60) + "b";
        assertThat(XaIds.parse(XaIds.toXid(new TransactionId(a, 0, 1, "aaaaaaaa")), b))
                .isEmpty();
        Xid foreign = new XaIds.XaXid(XaIds.FORMAT_ID, "not/ours".getBytes(), "orders".getBytes());
        assertThat(XaIds.parse(foreign, "orders")).isEmpty();
        Xid otherFormat = new XaIds.XaXid(
                1,
                XaIds.toXid(new TransactionId("orders", 0, 1, "aaaaaaaa")).getGlobalTransactionId(),
                "orders".getBytes());
        assertThat(XaIds.parse(otherFormat, "orders")).isEmpty();
    }
}
