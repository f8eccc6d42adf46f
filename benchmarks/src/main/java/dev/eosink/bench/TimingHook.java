/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;

/** Times prepare and commit of the eosink sinks; does nothing per record beyond one comparison. */
final class TimingHook implements LifecycleHook {

    private static final long serialVersionUID = 1L;

    @Override
    public void at(Point point, SubtaskContext context, TransactionId transaction) {
        switch (point) {
            case WRITE:
                return;
            case BEFORE_PREPARE:
                Probe.beforePrepare(context.subtask());
                return;
            case AFTER_PREPARE:
                Probe.afterPrepare(context.subtask());
                return;
            case BEFORE_COMMIT:
                Probe.beforeCommit(String.valueOf(transaction));
                return;
            case AFTER_COMMIT:
                Probe.afterCommit(String.valueOf(transaction));
                return;
            default:
        }
    }
}
