/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.spi.CarriedLedger;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.HeldWrites;
import dev.eosink.core.spi.WriterSession;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A writer session's {@link CarriedWrites} as the protocol uses it, whether the session offers the capability
 * or not: the one place that says what its absence means. A session without it holds nothing past a barrier,
 * its resource records no carried writes (so none are open, and there are none to give up), and a restored
 * writer state that carries writes cannot be applied: the start fails, naming the sink that took it.
 */
final class CarriedCapability implements HeldWrites, CarriedLedger {

    /** Null when the session carries nothing, as {@link #ledger}. */
    private final HeldWrites held;

    private final CarriedLedger ledger;
    /** The session's class, for the refusal of restored carried writes. */
    private final String sessionName;

    private CarriedCapability(Optional<CarriedWrites> carried, String sessionName) {
        this.held = carried.map(CarriedWrites::held).orElse(null);
        this.ledger = carried.map(CarriedWrites::ledger).orElse(null);
        this.sessionName = sessionName;
    }

    /** Asks the session once: its capability is the same for its life. */
    static CarriedCapability of(WriterSession<?> session) {
        return new CarriedCapability(session.carriedWrites(), session.getClass().getName());
    }

    @Override
    public Optional<byte[]> carried() throws IOException {
        return held == null ? Optional.empty() : held.carried();
    }

    @Override
    public boolean holdsWrites() {
        return held != null && held.holdsWrites();
    }

    @Override
    public void applyCarried(byte[] carried, int subtask, String origin) throws IOException {
        if (held == null) {
            throw new IOException(origin + " carries writes, but " + sessionName + " carries none and cannot "
                    + "apply them: restore the checkpoint with the sink that took it");
        }
        held.applyCarried(carried, subtask, origin);
    }

    @Override
    public List<CarriedNotice> openCarried() throws IOException {
        return ledger == null ? List.of() : ledger.openCarried();
    }

    @Override
    public void closeCarried(int subtask) throws IOException {
        if (ledger != null) {
            ledger.closeCarried(subtask);
        }
    }
}
