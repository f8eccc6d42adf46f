/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a whole transaction and a single change accept: the invariants a sink relies on. */
class SourceChangesTest {

    private static final Instant TIME = Instant.parse("2026-01-01T00:00:00Z");
    private static final TransactionBoundary END = new TransactionBoundary(
            TransactionBoundary.Status.END,
            "749:22095296",
            TIME,
            Optional.of(new TransactionBoundary.Totals(2, Map.of("public.items", 2L))));

    @Test
    void aWholeTransactionIsItsEndsEventsInTotalOrder() {
        ChangeEvent first = insert(Optional.of(new SourceTransaction("749:22094720", 1, 1)));
        ChangeEvent second = insert(Optional.of(new SourceTransaction("749:22094976", 2, 2)));
        WholeTransaction whole = new WholeTransaction(3, END, List.of(first, second));
        assertThat(whole.sequence()).isEqualTo(3);
        assertThat(whole.transactionKey()).isEqualTo("749");
        assertThat(whole.id()).isEqualTo("749:22095296");
        assertThat(whole.commitTime()).isEqualTo(TIME);
        assertThat(whole.changes()).containsExactly(first, second);

        assertThatThrownBy(() -> new WholeTransaction(3, END, List.of(second, first)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("changes are the transaction's own, in total_order 1, 2, ...");
        ChangeEvent ofAnother = insert(Optional.of(new SourceTransaction("750:22096000", 2, 2)));
        assertThatThrownBy(() -> new WholeTransaction(3, END, List.of(first, ofAnother)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("change 2 of transaction 749 is");
        assertThatThrownBy(() -> new WholeTransaction(0, END, List.of(first, second)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a sequence starts at 1, not 0");
    }

    @Test
    void aSingleChangeBelongsToNoTransaction() {
        ChangeEvent read = insert(Optional.empty());
        assertThat(new SingleChange(1, read).changes()).containsExactly(read);
        assertThatThrownBy(() -> new SingleChange(1, insert(Optional.of(new SourceTransaction("749:1", 1, 1)))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("belongs to a source transaction, not alone");
    }

    private static ChangeEvent insert(Optional<SourceTransaction> transaction) {
        LinkedHashMap<String, Object> row = new LinkedHashMap<>();
        row.put("id", new JsonScalar(JsonScalar.Kind.NUMBER, "1"));
        return new ChangeEvent(
                new EventOrigin(
                        new TableId(Optional.of("shop"), Optional.of("public"), "items"),
                        new SourcePosition("postgresql", TIME, Optional.empty(), Map.of()),
                        transaction),
                transaction.isPresent() ? ChangeKind.INSERT : ChangeKind.SNAPSHOT_READ,
                Optional.of(new Row(row, Optional.empty())),
                Optional.empty(),
                Optional.of(new Row(row, Optional.empty())));
    }
}
