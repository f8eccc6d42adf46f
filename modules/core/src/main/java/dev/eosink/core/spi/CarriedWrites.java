/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Objects;

/**
 * The optional capability of a {@link WriterSession} to carry writes past a barrier: only a resource whose
 * prepared transactions lock what the next epoch writes needs it (upserts into a database, which must wait for
 * the commit of their own previous transaction: {@link OwnCommits}). A session without it carries nothing, and
 * the core then knows that no notice of carried writes can exist, and refuses a restored state that carries
 * writes, naming the sink that took it.
 *
 * <p>Two sides, which a resource may implement on different connections: the writes the epoch holds ({@link
 * HeldWrites}, the epoch's) and what the resource records of them until they are written ({@link
 * CarriedLedger}, read and cleared like recovery, never inside the epoch's transaction).
 */
@PublicEvolving
public interface CarriedWrites {

    /** The writes the session's epochs hold past a barrier, and the writing of restored ones. */
    HeldWrites held();

    /** What the resource records of carried writes not yet written. */
    CarriedLedger ledger();

    /** The capability made of its two sides. */
    static CarriedWrites of(HeldWrites held, CarriedLedger ledger) {
        Objects.requireNonNull(held, "held");
        Objects.requireNonNull(ledger, "ledger");
        return new CarriedWrites() {
            @Override
            public HeldWrites held() {
                return held;
            }

            @Override
            public CarriedLedger ledger() {
                return ledger;
            }
        };
    }
}
