/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.kafka.KafkaBroker;
import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.SourceBank;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./demo --cdc-vs-debezium}, tiny: 200 source transactions, one round, into a PostgreSQL and through a broker
 * of the class's own. eosink's replica equals the source, with every commit the reader observed consistent and nothing
 * left prepared; Debezium's JDBC sink connector (in its Connect worker) ends with the source's rows too. Whether the
 * peer's commits were consistent is printed, not asserted: in so small a run it may by chance be.
 */
class CdcVsDebeziumITCase {

    private static final int TRANSACTIONS = 200;

    private static KafkaBroker broker;
    private static StandalonePostgres postgres;
    private static CompletableFuture<StandalonePostgres> source;

    @BeforeAll
    static void startServers() {
        // Side by side: the test's time is in a tight CI budget.
        CompletableFuture<StandalonePostgres> replica =
                CompletableFuture.supplyAsync(() -> PostgresFixture.startNew(Map.of()));
        source = CompletableFuture.supplyAsync(CapturedBank::startSource); // the run closes it
        broker = KafkaBroker.namedOrStarted();
        postgres = replica.join();
    }

    @AfterAll
    static void stopServers() {
        if (postgres != null) {
            postgres.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void bothSinksReplicateTheSameTopicsAndEachVerdictIsPrinted() throws Exception {
        DemoOptions o = DemoOptions.parse(new String[] {
            "--cdc-vs-debezium", "--events", String.valueOf(TRANSACTIONS), "--rounds", "1", "--sink-id", "it-cmp"
        });
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        CdcVsDebezium.Report report;
        System.setOut(new PrintStream(new Tee(out, printed), true, StandardCharsets.UTF_8));
        try {
            report = CdcVsDebezium.run(o, KafkaDemo.Servers.shared(broker, postgres), source);
        } finally {
            System.setOut(out);
        }
        String output = printed.toString(StandardCharsets.UTF_8);

        Map<String, Integer> rows = Map.of(
                "accounts",
                SourceBank.ACCOUNTS,
                "transfers",
                TRANSACTIONS,
                "orders",
                (int) SourceBank.orders(TRANSACTIONS),
                "lines",
                161);
        List<CdcVsDebezium.Side> eosink = report.of(CdcVsDebezium.EOSINK);
        List<CdcVsDebezium.Side> peer = report.of(CdcVsDebezium.PEER);
        assertThat(eosink).hasSize(1);
        assertThat(peer).hasSize(1);

        CdcVsDebezium.Side ours = eosink.get(0);
        assertThat(ours.failure).as("eosink's failure").isNull();
        assertThat(ours.equal).as("eosink's replica equals the source").isTrue();
        assertThat(ours.rows).as("eosink's rows per table").isEqualTo(rows);
        assertThat(ours.observed)
                .as("commits the reader observed on eosink's replica")
                .isPositive();
        assertThat(ours.inconsistentCommits)
                .as("eosink's inconsistent commits: %s", ours.inconsistent)
                .isZero();
        assertThat(ours.prepared).as("eosink's prepared transactions left").isZero();
        assertThat(ours.seconds).as("eosink's seconds").isPositive();

        CdcVsDebezium.Side theirs = peer.get(0);
        assertThat(theirs.failure).as("the peer's failure").isNull();
        assertThat(theirs.equal)
                .as("the peer's replica equals the source at the end")
                .isTrue();
        assertThat(theirs.rows).as("the peer's rows per table").isEqualTo(rows);
        assertThat(theirs.seconds).as("the peer's seconds").isPositive();

        assertThat(report.exit).isZero();
        // Each sink's verdict line, printed: the peer's whatever it says.
        assertThat(output).contains("  " + ours.verdict() + "\n").contains("  " + theirs.verdict() + "\n");
        assertThat(output).contains("consistent at every observed commit: " + ours.observed + " of " + ours.observed);
        assertThat(output).containsPattern("eosink +median .* source transactions/s");
        assertThat(output).containsPattern("debezium-jdbc +median .* source transactions/s");
        assertThat(output).contains("ratio (eosink's throughput / the peer's, medians): ");
        assertThat(CdcVsDebezium.markdown(o, report, "n/a"))
                .contains("| 1 | eosink | first |")
                .contains("| 1 | debezium-jdbc | second |")
                .contains("Ratio of the medians");
    }

    /** Writes to both streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            a.flush();
            b.flush();
        }
    }
}
