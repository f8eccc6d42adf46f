/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.explore;

import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A scenario's text and mode, the share of modes the generator draws, and what the changelog records do. */
class ScenarioTest {

    private static final String STEPS = "start fresh p3 state=kept jobid=fixed chaining=JOB_OFF gate=chained "
            + "leftover=FAIL rewind=WARN; fail at=BEFORE_COMMIT; stop drain=true";

    @Test
    void aTextWithoutAModeIsAnInsertScenarioAsBeforeTheModes() {
        Scenario scenario = Scenario.parse(STEPS);
        assertThat(scenario.mode()).isEqualTo(WriteMode.INSERT);
        assertThat(scenario.steps()).hasSize(3);
        assertThat(scenario.text()).isEqualTo("mode insert; " + STEPS);
    }

    @Test
    void theModeIsTheFirstWordOfTheTextAndSurvivesTheShrinker() {
        Scenario scenario = Scenario.parse("mode changelog; slow commits; " + STEPS);
        assertThat(scenario.mode()).isEqualTo(WriteMode.CHANGELOG);
        assertThat(scenario.steps().get(0)).isInstanceOf(Step.SlowCommits.class);
        assertThat(Scenario.parse(scenario.text()).text()).isEqualTo(scenario.text());
        assertThat(scenario.without(0).without(0).without(0).text()).isEqualTo("mode changelog; stop drain=true");
        assertThat(scenario.without(0).without(0).without(0).without(0).text()).isEqualTo("mode changelog");
        assertThat(Scenario.parse("mode changelog").steps()).isEmpty();
        assertThat(scenario.with(1, new Step.Checkpoint()).mode()).isEqualTo(WriteMode.CHANGELOG);
        assertThatThrownBy(() -> Scenario.parse("mode upsert; " + STEPS))
                .hasMessageContaining(
                        "not a write mode: 'upsert' (insert, insert-by-batch, changelog or changelog-by-copy)");
        assertThat(Scenario.parse("mode changelog-by-copy; " + STEPS).mode()).isEqualTo(WriteMode.CHANGELOG_BY_COPY);
        assertThat(Scenario.parse("mode insert-by-batch; " + STEPS).mode()).isEqualTo(WriteMode.INSERT_BY_BATCH);
    }

    /**
     * The mode is drawn apart from the steps: an insert scenario's steps are the same on every backend (and
     * as before the modes). Changelog scenarios start with chaining off more often; {@link
     * ScenarioGenerator#BY_COPY_PERCENT} of them write by COPY where the backend can, and are otherwise the same
     * scenarios.
     */
    @Test
    void aFairShareOfChangelogScenariosOnlyWhereTheBackendHasOne() {
        int changelogs = 0;
        int byCopy = 0;
        int byBatch = 0;
        int starts = 0;
        int unchained = 0;
        Set<WriteMode> all = EnumSet.allOf(WriteMode.class);
        Set<WriteMode> statementsOnly = EnumSet.of(WriteMode.INSERT, WriteMode.CHANGELOG);
        for (long seed = 1; seed <= 1_000; seed++) {
            Scenario keyed = ScenarioGenerator.generate(seed, all);
            Scenario byStatements = ScenarioGenerator.generate(seed, statementsOnly);
            Scenario plain = ScenarioGenerator.generate(seed, EnumSet.of(WriteMode.INSERT));
            assertThat(plain.mode()).isEqualTo(WriteMode.INSERT);
            assertThat(byStatements.mode()).isNotEqualTo(WriteMode.CHANGELOG_BY_COPY);
            assertThat(byStatements.steps().toString()).isEqualTo(keyed.steps().toString());
            Scenario resolving = ScenarioGenerator.generate(seed, all, true);
            assertThat(resolving.mode()).isEqualTo(keyed.mode());
            assertThat(resolving.steps())
                    .as("a resolve step only where a job just ended by a stop or a cancel")
                    .filteredOn(step -> step instanceof Step.Resolve)
                    .allSatisfy(step -> {
                        Step before = resolving.steps().get(resolving.steps().indexOf(step) - 1);
                        assertThat(before).isInstanceOfAny(Step.Stop.class, Step.Cancel.class);
                    });
            assertThat(resolving.steps().stream()
                            .filter(step -> !(step instanceof Step.Resolve))
                            .map(Step::toString))
                    .as("the other steps those of the seed")
                    .containsExactlyElementsOf(
                            keyed.steps().stream().map(Step::toString).toList());
            if (!keyed.mode().changelog()) {
                byBatch += keyed.mode() == WriteMode.INSERT_BY_BATCH ? 1 : 0;
                assertThat(byStatements.mode()).isEqualTo(WriteMode.INSERT);
                assertThat(keyed.steps().toString()).isEqualTo(plain.steps().toString());
                continue;
            }
            changelogs++;
            byCopy += keyed.mode() == WriteMode.CHANGELOG_BY_COPY ? 1 : 0;
            for (Step step : keyed.steps()) {
                if (step instanceof Step.Start start) {
                    starts++;
                    unchained += start.chaining == Step.Chaining.ON ? 0 : 1;
                }
            }
        }
        assertThat(changelogs).isBetween(400, 500);
        assertThat(byBatch * 100 / (1_000 - changelogs))
                .as("%% of insert scenarios by batches")
                .isBetween(ScenarioGenerator.BY_BATCH_PERCENT - 10, ScenarioGenerator.BY_BATCH_PERCENT + 10);
        assertThat(byCopy * 100 / changelogs)
                .as("%% of changelog scenarios by COPY")
                .isBetween(ScenarioGenerator.BY_COPY_PERCENT - 10, ScenarioGenerator.BY_COPY_PERCENT + 10);
        assertThat(unchained * 100 / starts)
                .as("%% of changelog starts with chaining off")
                .isBetween(70, 80);
    }

    /**
     * Churn keys are deleted for good one LAG after their insert, half of them by an UPDATE_BEFORE, and
     * hot keys end in every state: so a missed delete, or an UPDATE_BEFORE that deletes nothing, shows.
     */
    @Test
    void theChangelogRecordsEndWithKeysDeletedByUpdateBeforesAndByDeletes() {
        Map<Long, Long> lastRecord = new HashMap<>();
        for (long i = 0; i < Scenario.IDS; i++) {
            lastRecord.put(ChangelogIds.key(i), i);
        }
        Map<RowKind, Integer> lastKinds = new HashMap<>();
        lastRecord.values().forEach(i -> lastKinds.merge(ChangelogIds.kind(i), 1, Integer::sum));
        assertThat(lastKinds.get(RowKind.UPDATE_BEFORE))
                .as("keys an UPDATE_BEFORE deletes last")
                .isGreaterThan(100);
        assertThat(lastKinds.get(RowKind.DELETE))
                .as("keys a DELETE deletes last")
                .isGreaterThan(100);
        assertThat(ChangelogIds.expected())
                .hasSize(lastRecord.size() - lastKinds.get(RowKind.UPDATE_BEFORE) - lastKinds.get(RowKind.DELETE));
        long hotKeysDeleted = lastRecord.entrySet().stream()
                .filter(e -> e.getKey() < ChangelogIds.HOT_KEYS)
                .filter(e -> !ChangelogIds.expected().containsKey(e.getKey()))
                .count();
        assertThat(hotKeysDeleted).as("hot keys the input deletes last").isPositive();
        for (long i = 0; i < Scenario.IDS; i++) {
            if (ChangelogIds.key(i) >= ChangelogIds.CHURN_KEYS && ChangelogIds.key(i) != ChangelogIds.CHURN_KEYS + i) {
                assertThat(ChangelogIds.key(i))
                        .as("the key record %d deletes", i)
                        .isEqualTo(ChangelogIds.CHURN_KEYS + i - ChangelogIds.LAG);
                assertThat(ChangelogIds.kind(i)).isIn(RowKind.DELETE, RowKind.UPDATE_BEFORE);
            }
        }
    }
}
