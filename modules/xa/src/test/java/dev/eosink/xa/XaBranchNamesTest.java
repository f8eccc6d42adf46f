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
            assertThat(xid.getBranchQualifier()).isEqualTo(XaBranchNames.branchQualifier(sinkId)).hasSizeLessThanOrEqualTo(64);
        }
        assertThatThrownBy(() -> XaBranchNames.branchQualifier("has/slash")).hasMessageContaining("Invalid sink id");
    }
}
