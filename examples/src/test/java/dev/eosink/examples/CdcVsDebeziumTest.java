/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.testing.cdc.SourceBank;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code ./demo --cdc-vs-debezium}'s options, the peer's tables and the final state's differences, without servers. */
class CdcVsDebeziumTest {

    @Test
    void itsOptionsHaveTheirDefaultsAndGoWithItOnly() {
        DemoOptions o = DemoOptions.parse(new String[] {"--cdc-vs-debezium"});
        assertThat(o.source).isEqualTo("cdc-vs-debezium");
        assertThat(o.events).isEqualTo(10_000);
        assertThat(o.rounds).isEqualTo(3);
        assertThat(o.peerTasks).isEqualTo(1);
        assertThat(o.peerBatchSize).isNull();
        assertThat(o.peerForeignKeys).isFalse();
        assertThat(o.chaos).isFalse();

        o = DemoOptions.parse(new String[] {
            "--cdc-vs-debezium",
            "--events",
            "500",
            "--rounds",
            "1",
            "--peer-tasks",
            "4",
            "--peer-batch-size",
            "2_000",
            "--peer-foreign-keys"
        });
        assertThat(o.peerForeignKeys).isTrue();
        assertThat(o.events).isEqualTo(500);
        assertThat(o.rounds).isEqualTo(1);
        assertThat(o.peerTasks).isEqualTo(4);
        assertThat(o.peerBatchSize).isEqualTo(2_000);

        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--cdc-vs-debezium", "--chaos", "on"}))
                .hasMessageContaining("without failures");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--cdc-vs-debezium", "--rate", "100"}))
                .hasMessageContaining("unthrottled");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--cdc", "--rounds", "2"}))
                .hasMessageContaining("go with --cdc-vs-debezium");
    }

    @Test
    void thePeersTablesAreTheSourcesWithoutForeignKeys() {
        List<String> ddl = CdcVsDebezium.withoutForeignKeys(SourceBank.ddl("cmp_debezium_r1"));
        assertThat(ddl).hasSameSizeAs(SourceBank.ddl("cmp_debezium_r1"));
        assertThat(String.join("\n", ddl)).doesNotContain("REFERENCES").contains("PRIMARY KEY (order_id, line_no)");
        assertThat(ddl.get(2))
                .isEqualTo("CREATE TABLE cmp_debezium_r1.transfers (id bigint PRIMARY KEY, src bigint NOT NULL, "
                        + "dst bigint NOT NULL, amount numeric(12,2) NOT NULL, at timestamptz NOT NULL)");
    }

    @Test
    void theFinalStatesDifferencesCountRowsMissingExtraAndDifferent() {
        Map<String, Map<String, String>> want = Map.of("orders", Map.of("1", "(1,5)", "2", "(2,6)", "3", "(3,7)"));
        Map<String, Map<String, String>> got = Map.of("orders", Map.of("1", "(1,5)", "2", "(2,0)", "4", "(4,1)"));
        assertThat(CdcVsDebezium.differences(want, got)).isEqualTo("orders: 1 missing, 1 extra, 1 different");
        assertThat(CdcVsDebezium.differences(want, want)).isEmpty();
    }
}
