package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RecoveryPlanTest {

    private static TransactionId tx(int subtask, long checkpoint) {
        return new TransactionId("s", subtask, checkpoint, "abcd1234");
    }

    @Test
    void restoredRunRollsBackOnlyCheckpointsAfterTheRestoredOne() {
        List<TransactionId> found = List.of(tx(0, 4), tx(0, 5), tx(0, 6), tx(0, 7));
        RecoveryPlan plan = RecoveryPlan.decide(found, "s", 0, 1, OptionalLong.of(5));
        assertThat(plan.toRollBack()).containsExactly(tx(0, 6), tx(0, 7));
        assertThat(plan.leftForCommitter()).containsExactly(tx(0, 4), tx(0, 5));
        assertThat(plan.freshStart()).isFalse();
    }

    @Test
    void freshRunTreatsEverythingOwnedAsLeftover() {
        RecoveryPlan plan = RecoveryPlan.decide(List.of(tx(0, 1), tx(1, 9)), "s", 0, 2, OptionalLong.empty());
        assertThat(plan.toRollBack()).containsExactly(tx(0, 1));
        assertThat(plan.freshStart()).isTrue();
    }

    @Test
    void otherSinksAreNeverTouched() {
        TransactionId other = new TransactionId("s2", 0, 9, "abcd1234");
        RecoveryPlan plan = RecoveryPlan.decide(List.of(other), "s", 0, 1, OptionalLong.of(1));
        assertThat(plan.toRollBack()).isEmpty();
        assertThat(plan.leftForCommitter()).isEmpty();
    }

    /**
     * Names at or before the restored checkpoint are left at start, whatever their run; those still
     * prepared once the restored committers are done are orphans of another run.
     */
    @Test
    void transactionsLeftForTheCommitterThatStayPreparedAreOrphans() {
        TransactionId held = new TransactionId("s", 0, 4, "aaaaaaaa");
        TransactionId other = new TransactionId("s", 0, 3, "bbbbbbbb");
        TransactionId notOwned = new TransactionId("s", 1, 3, "bbbbbbbb");
        RecoveryPlan plan = RecoveryPlan.decide(List.of(held, other, notOwned), "s", 0, 2, OptionalLong.of(4));
        assertThat(plan.toRollBack()).isEmpty();
        assertThat(plan.leftForCommitter()).containsExactly(other, held);
        assertThat(plan.orphans(List.of(other, notOwned, new TransactionId("s", 0, 5, "cccccccc")))).containsExactly(other);
        assertThat(plan.orphans(List.of())).isEmpty();
    }

    /** After any rescale, every old subtask index has exactly one owner among the new subtasks. */
    @Test
    void everyOldSubtaskHasExactlyOneOwnerAfterRescale() {
        int[][] rescales = {{1, 2}, {2, 1}, {4, 3}, {3, 4}, {6, 5}, {8, 1}, {1, 8}};
        for (int[] r : rescales) {
            int oldParallelism = r[0];
            int newParallelism = r[1];
            List<TransactionId> found = new ArrayList<>();
            for (int s = 0; s < oldParallelism; s++) {
                found.add(tx(s, 10));
            }
            Set<TransactionId> rolledBack = new HashSet<>();
            int total = 0;
            for (int sub = 0; sub < newParallelism; sub++) {
                RecoveryPlan plan = RecoveryPlan.decide(found, "s", sub, newParallelism, OptionalLong.of(9));
                rolledBack.addAll(plan.toRollBack());
                total += plan.toRollBack().size();
                for (TransactionId id : plan.toRollBack()) {
                    if (id.subtask() != sub) {
                        assertThat(RecoveryPlan.adoptedSubtasks(plan.toRollBack(), sub)).contains(id.subtask());
                    }
                }
            }
            assertThat(total).as("rescale %d->%d: no transaction rolled back twice", oldParallelism, newParallelism)
                    .isEqualTo(oldParallelism);
            assertThat(rolledBack).as("rescale %d->%d", oldParallelism, newParallelism).containsExactlyInAnyOrderElementsOf(found);
        }
    }

    @Test
    void upscaleThatFailedBeforeItsFirstCheckpointIsCleanedAtTheOldParallelism() {
        // 2 -> 4 wrote transactions for checkpoint 11 on subtasks 0..3 and died; back at 2 from 10.
        List<TransactionId> found = List.of(tx(0, 11), tx(1, 11), tx(2, 11), tx(3, 11));
        RecoveryPlan p0 = RecoveryPlan.decide(found, "s", 0, 2, OptionalLong.of(10));
        RecoveryPlan p1 = RecoveryPlan.decide(found, "s", 1, 2, OptionalLong.of(10));
        assertThat(p0.toRollBack()).containsExactly(tx(0, 11), tx(2, 11));
        assertThat(RecoveryPlan.adoptedSubtasks(p0.toRollBack(), 0)).containsExactly(2);
        assertThat(p1.toRollBack()).containsExactly(tx(1, 11), tx(3, 11));
    }
}
