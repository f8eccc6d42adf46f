/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedLedger;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.core.spi.CarriedWrites;
import dev.eosink.core.spi.EpochWriter;
import dev.eosink.core.spi.HeldWrites;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.WriterSession;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A writer session that finds no leftovers, carries nothing and does nothing, playing each of its roles
 * itself; unit tests override what they observe.
 */
class NoOpWriterSession implements WriterSession<String>, Recovery, EpochWriter<String> {

    @Override
    public Recovery recovery() {
        return this;
    }

    @Override
    public EpochWriter<String> epoch() {
        return this;
    }

    @Override
    public Optional<CarriedWrites> carriedWrites() {
        return Optional.empty();
    }

    @Override
    public void claim(int subtask, long waitMillis) {}

    @Override
    public void release(int subtask) {}

    @Override
    public List<TransactionId> listPrepared() {
        return List.of();
    }

    @Override
    public void rollbackPrepared(TransactionId id) {}

    @Override
    public void write(String record, long positionInEpoch) throws java.io.IOException {}

    @Override
    public void flush() {}

    @Override
    public void prepare(TransactionId id, long rows) {}

    @Override
    public void abortOpen() {}

    @Override
    public void close() {}

    /** The same, with the capability to carry writes: it holds none and the resource records none. */
    static class Carrying extends NoOpWriterSession implements HeldWrites, CarriedLedger {

        @Override
        public Optional<CarriedWrites> carriedWrites() {
            return Optional.of(CarriedWrites.of(this, this));
        }

        @Override
        public Optional<byte[]> carried() throws IOException {
            return Optional.empty();
        }

        @Override
        public boolean holdsWrites() {
            return false;
        }

        @Override
        public void applyCarried(byte[] carried, int subtask, String origin) throws IOException {}

        @Override
        public List<CarriedNotice> openCarried() throws IOException {
            return List.of();
        }

        @Override
        public void closeCarried(int subtask) {}
    }
}
