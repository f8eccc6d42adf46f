/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.examples.kafka.KafkaBroker;
import dev.eosink.testing.StandalonePostgres;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * The Kafka demo's failures of whole servers, on top of {@link Chaos}'s task failures: each kind once, at
 * set shares of the topic read by the job, so that every run has all of them while the job still reads: a
 * TaskManager killed (and a new one started), PostgreSQL crashed with SIGKILL and started again on the
 * same data, the Kafka broker killed with SIGKILL and started again on the same log. A server this run
 * did not start (a named broker, a --postgres-url database) is left alone, and the run says so.
 */
final class Outages {

    /** A server lost. */
    enum Kind {
        TASK_MANAGER_KILLED,
        POSTGRES_CRASHED,
        KAFKA_BROKER_RESTARTED
    }

    /** When each kind strikes: the share of the topic read by then (replays included). */
    private static final Map<Kind, Double> AT =
            Map.of(Kind.TASK_MANAGER_KILLED, 0.2, Kind.KAFKA_BROKER_RESTARTED, 0.45, Kind.POSTGRES_CRASHED, 0.7);

    private final LocalCluster cluster;
    private final StandalonePostgres postgres;
    private final KafkaBroker broker;
    private final DoubleSupplier progress;
    private final Map<Kind, Integer> done = Collections.synchronizedMap(new EnumMap<>(Kind.class));
    private final List<String> skipped = new ArrayList<>();
    private volatile Thread thread;
    private volatile Exception failure;

    /**
     * @param postgres the database to crash, or null if this run may not
     * @param progress the share of the topic read so far, 0 to 1
     */
    Outages(LocalCluster cluster, StandalonePostgres postgres, KafkaBroker broker, DoubleSupplier progress) {
        this.cluster = cluster;
        this.postgres = postgres;
        this.broker = broker;
        this.progress = progress;
        for (Kind k : Kind.values()) {
            done.put(k, 0);
        }
        if (postgres == null) {
            skipped.add("PostgreSQL is not crashed: it was not started by this run (--postgres-url)");
        }
        if (!broker.restartable()) {
            skipped.add("the Kafka broker is not restarted: it was not started by this run ("
                    + KafkaBroker.ENV_BOOTSTRAP + " or --kafka-bootstrap)");
        }
    }

    /** Why some kinds will not strike in this run. */
    List<String> skipped() {
        return skipped;
    }

    /** The kinds that will strike. */
    List<Kind> planned() {
        List<Kind> kinds = new ArrayList<>();
        for (Kind k : Kind.values()) {
            if ((k != Kind.POSTGRES_CRASHED || postgres != null)
                    && (k != Kind.KAFKA_BROKER_RESTARTED || broker.restartable())) {
                kinds.add(k);
            }
        }
        kinds.sort((a, b) -> Double.compare(AT.get(a), AT.get(b)));
        return kinds;
    }

    void start() {
        Thread t = new Thread(this::run, "eosink-outages");
        t.setDaemon(true);
        t.start();
        thread = t;
    }

    void stop() throws InterruptedException {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            t.join(60_000);
        }
    }

    /** How many times each kind struck. */
    Map<Kind, Integer> done() {
        synchronized (done) {
            return new EnumMap<>(done);
        }
    }

    /** What went wrong while striking (a server that did not come back), if anything. */
    Exception failure() {
        return failure;
    }

    private void run() {
        try {
            for (Kind kind : planned()) {
                while (progress.getAsDouble() < AT.get(kind)) {
                    Thread.sleep(100);
                }
                strike(kind);
                done.merge(kind, 1, Integer::sum);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failure = e;
            System.out.println("[outage] failed: " + e);
        }
    }

    private void strike(Kind kind) throws Exception {
        long t0 = System.nanoTime();
        switch (kind) {
            case TASK_MANAGER_KILLED:
                int victim = cluster.killTaskManager();
                System.out.printf("[outage] TaskManager %d killed, a new one started (%.1f s)%n", victim, seconds(t0));
                break;
            case POSTGRES_CRASHED:
                postgres.crash();
                Thread.sleep(500);
                postgres.start();
                System.out.printf(
                        "[outage] PostgreSQL crashed (SIGKILL) and started again on the same data (%.1f s)%n",
                        seconds(t0));
                break;
            case KAFKA_BROKER_RESTARTED:
                broker.kill();
                Thread.sleep(500);
                broker.start();
                System.out.printf(
                        "[outage] Kafka broker killed (SIGKILL) and started again on the same log (%.1f s)%n",
                        seconds(t0));
                break;
            default:
                throw new IllegalStateException("unknown outage " + kind);
        }
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
