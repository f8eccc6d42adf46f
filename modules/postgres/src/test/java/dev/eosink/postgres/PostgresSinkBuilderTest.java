/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.postgres.internal.PostgresConnection;
import dev.eosink.postgres.internal.PostgresDatabase;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.runtime.partitioner.CustomPartitionerWrapper;
import org.apache.flink.streaming.runtime.partitioner.ForwardPartitioner;
import org.apache.flink.streaming.runtime.partitioner.StreamPartitioner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostgresSinkBuilderTest {

    private static PostgresSinkBuilder<Long> valid() {
        return PostgresSink.<Long>builder()
                .jdbcUrl("jdbc:postgresql://localhost:5432/db")
                .username("u")
                .password("s3cret-pw")
                .sinkId("orders")
                .table("orders")
                .columns("id")
                .rows(id -> new Object[] {id});
    }

    @Test
    void buildsAndNeverRendersThePassword() {
        ExactlyOnceSink<Long> sink = valid().build();
        assertThat(sink.toString()).contains("orders").doesNotContain("s3cret-pw");
        assertThat(sink.database().toString()).doesNotContain("s3cret-pw");
    }

    /** A null password (a secret that is not set) is refused naming the sink and the remedy, not a bare NPE. */
    @Test
    void aNullPasswordIsRefusedNamingTheSinkAndTheRemedy() {
        assertThatThrownBy(() -> valid().password(null).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink 'orders': password(null)")
                .hasMessageContaining("Remedy: pass the password")
                .hasMessageContaining("leave password(...) out");
    }

    /** A server that asks for no password (trust authentication, a client certificate): none is given. */
    @Test
    void noPasswordIsAllowed() {
        ExactlyOnceSink<Long> sink = PostgresSink.<Long>builder()
                .jdbcUrl("jdbc:postgresql://localhost:5432/db")
                .username("u")
                .sinkId("orders")
                .table("orders")
                .columns("id")
                .rows(id -> new Object[] {id})
                .build();
        assertThat(sink.toString()).contains("orders");
    }

    /**
     * An upsert sink partitions its input by the upsert key itself; a keyBy of the job's right before it
     * is replaced, not followed by a second exchange. The stream graph of either job has exactly one
     * edge that is not a forward one, and it is the sink's.
     */
    @ParameterizedTest(name = "job keyBy first: {0}")
    @ValueSource(booleans = {false, true})
    void anUpsertSinkPartitionsItsInputByTheKeyInOneExchange(boolean jobKeyBy) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1_000);
        DataStream<Long> ids = env.fromSequence(0, 99);
        if (jobKeyBy) {
            ids = ids.keyBy(id -> id % 7);
        }
        ids.sinkTo(valid().upsert("id").build());

        List<StreamPartitioner<?>> exchanges = env.getStreamGraph().getStreamNodes().stream()
                .flatMap(node -> node.getInEdges().stream())
                .map(StreamEdge::getPartitioner)
                .filter(p -> !(p instanceof ForwardPartitioner))
                .collect(Collectors.toList());
        assertThat(exchanges).hasSize(1);
        assertThat(exchanges.get(0)).isInstanceOf(CustomPartitionerWrapper.class);
    }

    @Test
    void passwordInTheUrlIsRedacted() {
        String url = "jdbc:postgresql://h/db?user=u&password=s3cret-pw&ssl=true";
        assertThat(PostgresConnection.of(url, new Properties()).toString()).doesNotContain("s3cret-pw");
    }

    @Test
    void sinkIdIsRequiredAndChecked() {
        assertThatThrownBy(() -> PostgresSink.<Long>builder()
                        .jdbcUrl("jdbc:postgresql://h/db")
                        .table("t")
                        .columns("id")
                        .rows(x -> new Object[] {x})
                        .build())
                .hasMessageContaining("sinkId is required");
        assertThatThrownBy(() -> valid().sinkId("has/slash")).hasMessageContaining("Invalid sink id");
        assertThatThrownBy(() -> valid().sinkId("x".repeat(101))).hasMessageContaining("1 to 100 characters");
    }

    @Test
    void tableModeAndSqlModeExcludeEachOther() {
        assertThatThrownBy(() -> valid().sql("INSERT INTO t VALUES (?)", (ps, x) -> ps.setLong(1, x))
                        .build())
                .hasMessageContaining("sink 'orders'")
                .hasMessageContaining("either table");
        assertThatThrownBy(() -> PostgresSink.<Long>builder()
                        .jdbcUrl("jdbc:postgresql://h/db")
                        .sinkId("s")
                        .table("t")
                        .build())
                .hasMessageContaining("missing columns rows");
    }

    @Test
    void badSettingsNameTheSetting() {
        assertThatThrownBy(() -> valid().batchSize(0)).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> valid().columns("a", "a")).hasMessageContaining("listed twice");
        assertThatThrownBy(() -> valid().jdbcUrl("jdbc:mysql://h/db"))
                .hasMessageContaining("Not a PostgreSQL JDBC URL");
        assertThatThrownBy(() -> valid().commitRetries(-1).build()).hasMessageContaining("commitRetries");
        assertThatThrownBy(() -> valid().maxCopyBacklog(1024))
                .hasMessageContaining("maxCopyBacklog")
                .hasMessageContaining("or 0 to turn COPY flow control off");
        assertThatThrownBy(() -> valid().maxCopyBacklog(-1)).hasMessageContaining("maxCopyBacklog");
    }

    /** Timeouts are on by default and documented; whatever the user gives the driver wins. */
    @Test
    void networkDefaultsYieldToTheUsersDriverProperties() {
        assertThat(driverProperty(valid(), "socketTimeout")).isEqualTo("120");
        assertThat(driverProperty(valid(), "tcpKeepAlive")).isEqualTo("true");
        assertThat(driverProperty(valid().networkTimeout(Duration.ofMillis(2_500)), "socketTimeout"))
                .isEqualTo("3");
        assertThat(driverProperty(valid().networkTimeout(Duration.ZERO), "socketTimeout"))
                .isNull();
        assertThat(driverProperty(valid().property("socketTimeout", "0"), "socketTimeout"))
                .isEqualTo("0");
        assertThat(driverProperty(valid().property("tcpKeepAlive", "false"), "tcpKeepAlive"))
                .isEqualTo("false");
        assertThat(driverProperty(valid(), "sendBufferSize")).isEqualTo("65536");
        assertThat(driverProperty(valid().property("sendBufferSize", "-1"), "sendBufferSize"))
                .isEqualTo("-1");
        // Set in the URL: the driver reads it from there, the sink adds nothing.
        assertThat(driverProperty(valid().jdbcUrl("jdbc:postgresql://h/db?ssl=true&socketTimeout=7"), "socketTimeout"))
                .isNull();
        assertThatThrownBy(() -> valid().networkTimeout(Duration.ofMillis(10))).hasMessageContaining("networkTimeout");
    }

    private static String driverProperty(PostgresSinkBuilder<Long> builder, String key) {
        return ((PostgresDatabase<?>) builder.build().database()).connection().property(key);
    }

    @Test
    void exactlyOneConnectionSource() {
        assertThatThrownBy(() -> PostgresSink.<Long>builder()
                        .sinkId("s")
                        .table("t")
                        .columns("id")
                        .rows(x -> new Object[] {x})
                        .build())
                .hasMessageContaining("exactly one of jdbcUrl");
    }
}
