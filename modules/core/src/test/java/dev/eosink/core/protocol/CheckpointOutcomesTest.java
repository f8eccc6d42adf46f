/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What this JVM hears of a writer's checkpoint outcomes, as outcome operators open and close. */
class CheckpointOutcomesTest {

    /**
     * A failover can move the outcome operator of a subtask to another TaskManager while its writer stays: once
     * it closed here, nothing of that subtask is heard here any more, even if the closing attempt overlapped
     * with the next one that opened here.
     */
    @Test
    void anOutcomeOperatorThatClosedIsNoLongerHeard() {
        String execution = "exec-" + System.nanoTime();
        String committer = CheckpointOutcomes.committer("s", 1);
        assertThat(CheckpointOutcomes.hears(execution, committer)).isFalse();
        CheckpointOutcomes.listening(execution, committer);
        CheckpointOutcomes.listening(execution, committer); // the next attempt opened before the last one closed
        CheckpointOutcomes.stoppedListening(execution, committer);
        assertThat(CheckpointOutcomes.hears(execution, committer))
                .as("the next attempt is still open")
                .isTrue();
        CheckpointOutcomes.stoppedListening(execution, committer);
        assertThat(CheckpointOutcomes.hears(execution, committer)).isFalse();
        CheckpointOutcomes.stoppedListening(execution, committer); // closing twice changes nothing
        assertThat(CheckpointOutcomes.hears(execution, committer)).isFalse();
    }
}
