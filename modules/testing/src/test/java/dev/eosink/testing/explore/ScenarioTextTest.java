/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a report prints is what a replay runs: every generated scenario reads back from its text as the
 * same steps, and a violation's kind survives the numbers and names that differ between runs.
 */
class ScenarioTextTest {

    @Test
    void everyGeneratedScenarioReadsBackFromItsText() {
        java.util.Set<String> moves = new java.util.TreeSet<>();
        for (long seed = 0; seed < 500; seed++) {
            Scenario scenario = ScenarioGenerator.generate(
                    ExploreSettings.scenarioSeed(42, (int) seed), java.util.EnumSet.allOf(WriteMode.class), true);
            scenario.steps().forEach(step -> moves.add(step.getClass().getSimpleName()));
            String text = scenario.text();
            assertThat(Scenario.parse(text).text()).as("scenario %d", seed).isEqualTo(text);
            assertThat(scenario.steps())
                    .as("scenario %d", seed)
                    .filteredOn(step -> !(step instanceof Step.SlowCommits))
                    .first()
                    .isInstanceOf(Step.Start.class);
        }
        assertThat(moves)
                .as("the moves 500 scenarios draw")
                .containsExactlyInAnyOrder(
                        "Start",
                        "Progress",
                        "Checkpoint",
                        "Decline",
                        "Savepoint",
                        "Stop",
                        "Cancel",
                        "Fail",
                        "Delay",
                        "Crash",
                        "Stall",
                        "SlowCommits",
                        "Resolve");
    }

    @Test
    void theShrinkersCopiesChangeOneParameterEach() {
        Step.Start start = (Step.Start) Step.parse(
                "start snapshot#3 p3 state=dropped jobid=fixed chaining=JOB_OFF gate=apart leftover=FAIL rewind=WARN");
        assertThat(start.withParallelism(1))
                .hasToString(
                        "start snapshot#3 p1 state=dropped jobid=fixed chaining=JOB_OFF gate=apart leftover=FAIL rewind=WARN");
        assertThat(start.withChaining(Step.Chaining.ON, true))
                .hasToString(
                        "start snapshot#3 p3 state=dropped jobid=fixed chaining=ON gate=chained leftover=FAIL rewind=WARN");
        assertThat(start.withFixedJobId(false))
                .hasToString(
                        "start snapshot#3 p3 state=dropped jobid=new chaining=JOB_OFF gate=apart leftover=FAIL rewind=WARN");
        assertThat(start.withSinkState(true))
                .hasToString(
                        "start snapshot#3 p3 state=kept jobid=fixed chaining=JOB_OFF gate=apart leftover=FAIL rewind=WARN");
    }

    @Test
    void aViolationsKindLeavesOutRunsIdsAndNames() {
        assertThat(Oracle.kind("LOSS: 12 ids are in no committed transaction of the final line of history (runs 0, 2)"))
                .isEqualTo("LOSS");
        assertThat(Oracle.kind("NOT ATOMIC: the table differs from what the committed transactions hold: id 3"))
                .isEqualTo("NOT ATOMIC");
        assertThat(Oracle.kind("run 4 rolled back eos1/ex-1/0/3/abc, which snapshot#1 promised"))
                .isEqualTo(Oracle.kind("run 1 rolled back eos1/ex-9/1/7/xyz, another execution's"))
                .isEqualTo("rolled back");
        assertThat(Oracle.kind("run 2 failed: timeout")).isEqualTo("failed").isNotEqualTo(Oracle.kind("LOSS: 1 ids"));
        assertThat(Oracle.kind("FOREIGN MARKER: eos1/ex-1/0/3/abc committed, which no writer of the scenario prepared"))
                .isEqualTo("FOREIGN MARKER");
        assertThat(Oracle.kind("DID NOT FINISH: AssertionError: run 3 of ex-1 did not finish"))
                .isEqualTo("DID NOT FINISH");
    }

    /** A scenario the runner could not end is reported as such, not as the loss of what it never wrote. */
    @Test
    void aScenarioThatDidNotFinishIsOneViolationOfItsOwnKind() {
        History history = new History(WriteMode.INSERT);
        history.unfinished = "AssertionError: run 0 of ex-1 did not finish";
        assertThat(Oracle.violations(history)).containsExactly("DID NOT FINISH: " + history.unfinished);
        assertThat(Oracle.violations(new History(WriteMode.INSERT)))
                .singleElement()
                .asString()
                .startsWith("LOSS: " + Scenario.IDS + " ids");
    }
}
