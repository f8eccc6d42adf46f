/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.util.Locale;

/**
 * How fast the generator hands out its orders: at most so many a second ({@code --rate}), or so many per
 * completed checkpoint ({@code --per-checkpoint}). The second makes the job's length a number of
 * checkpoints, whatever the machine's speed: a test that acts after some checkpoints knows how many the
 * job still has to go.
 */
abstract class Pace {

    private Pace() {}

    /** What the demo's first line says of the pace, after the number of orders. */
    abstract String describe();

    static Pace perSecond(double orders) {
        if (!(orders > 0)) {
            throw new IllegalArgumentException("--rate takes orders per second above 0, not " + orders);
        }
        return new PerSecond(orders);
    }

    /** {@code orders} per completed checkpoint, all subtasks together: at least one per subtask. */
    static Pace perCheckpoint(int orders, int parallelism) {
        if (orders < parallelism) {
            throw new IllegalArgumentException(
                    "--per-checkpoint takes at least one order per subtask (" + parallelism + "), not " + orders);
        }
        return new PerCheckpoint(orders);
    }

    /** At most {@link #orders} a second, all subtasks together. */
    static final class PerSecond extends Pace {
        final double orders;

        private PerSecond(double orders) {
            this.orders = orders;
        }

        @Override
        String describe() {
            return String.format(Locale.ROOT, "at %,.0f/s", orders);
        }
    }

    /** {@link #orders} per completed checkpoint, all subtasks together (Flink's gated rate limiter). */
    static final class PerCheckpoint extends Pace {
        final int orders;

        private PerCheckpoint(int orders) {
            this.orders = orders;
        }

        @Override
        String describe() {
            return String.format(Locale.ROOT, "%,d per checkpoint", orders);
        }
    }
}
