/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import dev.eosink.core.protocol.CheckpointOutcomeOperator;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The job graph Flink makes of the sink, on whichever Flink line this build is for: the operator that
 * hears checkpoint outcomes runs in the writer's task, chained after the writer and the committer. A
 * writer learns of its checkpoints' outcomes only through it, and it registers the release hooks
 * before the committer opens, because Flink opens a chain from its tail.
 */
class SinkTopologyTest {

    @Test
    void checkpointOutcomesAreChainedToTheWriterAndTheCommitter() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1_000);
        env.fromData("a", "b", "c")
                .sinkTo(new ExactlyOnceSink<>(new UnopenedDatabase(), SinkSettings.defaults("orders")));

        JobGraph graph = env.getStreamGraph().getJobGraph();

        List<String> tasks = new ArrayList<>();
        for (JobVertex vertex : graph.getVertices()) {
            tasks.add(vertex.getName());
        }
        assertThat(tasks)
                .filteredOn(task -> task.contains(CheckpointOutcomeOperator.NAME))
                .singleElement()
                .satisfies(task -> assertThat(task).contains("Writer").contains("Committer"));
    }

    /**
     * One sink object given to two sinkTo calls would make two sinks of one sink id and one execution, whose
     * writers take each other's transactions and guard for their own: refused when the job is built.
     */
    @Test
    void oneSinkObjectInTwoSinkToCallsIsRefusedWhenTheJobIsBuilt() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000);
        ExactlyOnceSink<String> sink = new ExactlyOnceSink<>(new UnopenedDatabase(), SinkSettings.defaults("orders"));
        env.fromData("a").sinkTo(sink);
        env.fromData("b").sinkTo(sink);

        assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink 'orders' into nowhere")
                .hasMessageContaining("2 sinkTo(...) calls")
                .hasMessageContaining("Remedy: build one sink per sinkTo(...)");
    }

    /** A job graph built twice from one sinkTo call (an execution plan, then the job) is no second sink. */
    @Test
    void aJobBuiltTwiceFromOneSinkToCallIsNotRefused() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000);
        env.fromData("a").sinkTo(new ExactlyOnceSink<>(new UnopenedDatabase(), SinkSettings.defaults("orders")));

        assertThat(env.getExecutionPlan()).contains(CheckpointOutcomeOperator.NAME);
        assertThat(env.getStreamGraph().getJobGraph().getNumberOfVertices()).isPositive();
    }

    /** A database the job graph names but never opens. */
    private static final class UnopenedDatabase implements TransactionalDatabase<String> {

        private static final long serialVersionUID = 1L;

        @Override
        public WriterSession<String> openWriter(SubtaskContext context) {
            throw new UnsupportedOperationException("never opened");
        }

        @Override
        public CommitSession openCommitter(SubtaskContext context) {
            throw new UnsupportedOperationException("never opened");
        }

        @Override
        public String target() {
            return "nowhere";
        }
    }
}
