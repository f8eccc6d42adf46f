/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.TransactionId;
import dev.eosink.xa.internal.XaIds;

import org.junit.jupiter.api.Test;

import javax.transaction.xa.Xid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class XaBranchNamesTest {

    @Test
    void everyBranchOfASinkHasItsFormatIdAndQualifier() {
        for (String sinkId : new String[] {"orders", "s".repeat(100)}) {
            Xid xid = XaIds.toXid(new TransactionId(sinkId, 3, 42, "k3x9abcd"));
            assertThat(xid.getFormatId()).isEqualTo(XaBranchNames.FORMAT_ID);
            assertThat(xid.getBranchQualifier())
                    .isEqualTo(XaBranchNames.branchQualifier(sinkId))
                    .hasSizeLessThanOrEqualTo(64);
        }
        assertThatThrownBy(() -> XaBranchNames.branchQualifier("has/slash")).hasMessageContaining("Invalid sink id");
    }

    @Test
    void aRecoveredXidParsesBackToTheTransactionTheWriterPrepared() {
        TransactionId short_ = new TransactionId("orders", 3, 42, "k3x9abcd");
        assertThat(XaBranchNames.parse(XaIds.toXid(short_))).contains(short_);
        assertThat(XaBranchNames.parse(XaIds.toXid(short_), "orders")).contains(short_);
        assertThat(XaBranchNames.parse(XaIds.toXid(short_), "other")).isEmpty();

        // A sink id past 64 bytes is shortened in the qualifier: only the caller who knows it can parse.
        TransactionId long_ = new TransactionId("s".repeat(100), 0, 7, "k3x9abcd");
        assertThat(XaBranchNames.parse(XaIds.toXid(long_))).isEmpty();
        assertThat(XaBranchNames.parse(XaIds.toXid(long_), "s".repeat(100))).contains(long_);
    }

    @Test
    void lockNamesAreTheOnesTheMariaDbWriterTakes() {
        String hash = XaIds.sinkHash("orders");
        assertThat(XaBranchNames.guardLockName("orders", 2))
                .isEqualTo("eosink/" + hash + "/2")
                .hasSizeLessThanOrEqualTo(64);
        assertThat(XaBranchNames.branchLockName("orders", 2)).isEqualTo("eosink/" + hash + "/2/branch");
    }
}
