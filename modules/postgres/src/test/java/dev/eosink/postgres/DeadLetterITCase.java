/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.CheckpointPacedIds;
import dev.eosink.testing.records.DeadLetterRecords;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.eosink.testing.records.DeadLetterRecords.BAD_PER_500;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The optional dead-letter table: refused records go there, with the database's error, in the
 * epoch's own transaction, and the rest of the epoch commits. Ids 0..3999 go through a job with a
 * failover after a PREPARE; in each 500 ids, five are bad in five ways (NULL in a NOT NULL column, a
 * value too long, a CHECK violation, the row mapper throws, a duplicate key). The table must hold
 * every good id once and no bad one, the dead-letter table every bad record once, with its error.
 */
class DeadLetterITCase extends ExactlyOnceTestBase {

    private static final int N = 4_000;

    private String deadLetters() {
        return table + "_dead";
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(WriteMethod.class)
    void refusedRecordsAreKeptOnceAndTheRestCommits(WriteMethod method) throws Exception {
        db.execute("DROP TABLE " + table + "; CREATE TABLE " + table
                + " (id bigint PRIMARY KEY, payload varchar(12) NOT NULL CONSTRAINT not_bad CHECK (payload <> 'bad'))");
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3); // a replayed epoch refuses its bad records again
        StreamExecutionEnvironment env = env(2, 200);
        // At least four epochs with records per subtask: the third PREPARE comes.
        CheckpointPacedIds.ids(env, N, 500)
                .sinkTo(FaultInjectingDatabase.wrap(sinkBuilder(sinkId, table)
                        .writeMethod(method) // COPY falls back to batches: a refused row would abort the whole COPY
                        .rows(DeadLetterRecords::row)
                        .deadLetterTable(null, deadLetters())
                        .build()));
        env.execute("dead letters");

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failovers")
                .isEqualTo(1);
        long bad = (long) N / 500 * BAD_PER_500;
        assertThat(preparedLeft()).isEmpty();
        assertThat(rows()).as("rows").isEqualTo(N - bad);
        assertThat(distinctRows()).as("distinct ids").isEqualTo(N - bad);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id % 500 IN (37, 137, 237, 337, 437)"))
                .as("bad ids in the table")
                .isZero();
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE id % 500 = 436 AND payload = 'row-' || id"))
                .as("the rows the duplicates collided with")
                .isEqualTo(N / 500);

        String dead = deadLetters();
        assertThat(db.count("SELECT count(*) FROM " + dead)).as("dead letters").isEqualTo(bad);
        assertThat(db.count("SELECT count(DISTINCT record) FROM " + dead))
                .as("distinct dead letters")
                .isEqualTo(bad);
        assertThat(db.count(
                        "SELECT count(*) FROM " + dead
                                + " WHERE sink_id = ? AND record::bigint % 500 = 37 AND sqlstate = '23502'"
                                + " AND error LIKE '%null value in column \"payload\"%'",
                        sinkId))
                .isEqualTo(N / 500);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE record::bigint % 500 = 137 AND sqlstate = '22001'"
                        + " AND error LIKE '%value too long for type character varying(12)%'"))
                .isEqualTo(N / 500);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE record::bigint % 500 = 237 AND sqlstate = '23514'"
                        + " AND error LIKE '%violates check constraint \"not_bad\"%'"))
                .isEqualTo(N / 500);
        assertThat(
                        db.count(
                                "SELECT count(*) FROM " + dead
                                        + " WHERE record::bigint % 500 = 337 AND sqlstate IS NULL"
                                        + " AND error LIKE 'the row mapper or statement builder threw java.lang.IllegalStateException: no payload%'"))
                .isEqualTo(N / 500);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE record::bigint % 500 = 437 AND sqlstate = '23505'"
                        + " AND error LIKE '%duplicate key value violates unique constraint%'"))
                .isEqualTo(N / 500);
        // Each was committed with its epoch: its transaction's marker exists, and names the same checkpoint.
        assertThat(db.count("SELECT count(*) FROM " + dead + " d LEFT JOIN eosink_markers m ON m.gid = d.gid "
                        + "WHERE m.gid IS NULL OR m.checkpoint_id <> d.checkpoint_id OR m.subtask <> d.subtask"))
                .isZero();
    }

    @Test
    void notWithUpserts() {
        assertThatThrownBy(() -> sinkBuilder(sinkId, table)
                        .upsert("id")
                        .deadLetterTable(null, "dead")
                        .build())
                .hasMessageContaining("deadLetterTable(...) works with inserts only");
    }
}
