/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.LifecycleHook;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.util.UserCodeClassLoader;

import java.io.IOException;

/**
 * Makes a sink's lifecycle points reach {@link Faults}, through the sink's own lifecycle hook, and
 * counts the writers that begin to open ({@link Faults#writerStarts}), those a start-up check refuses
 * included. Everything else goes to the real database: this is failure injection, not a mock.
 */
public final class FaultInjectingDatabase {

    private FaultInjectingDatabase() {}

    /** The same sink with faults injectable at every point of its lifecycle. */
    public static <IN> ExactlyOnceSink<IN> wrap(ExactlyOnceSink<IN> sink) {
        return new ExactlyOnceSink<>(new CountingStarts<>(sink.database()), sink.settings(), sink.distribution())
                .withLifecycleHook(FaultInjectingDatabase::at);
    }

    private static void at(LifecycleHook.Point point, SubtaskContext context, TransactionId id) throws IOException {
        if (point == LifecycleHook.Point.WRITER_OPENED) {
            Faults.writerOpened(context.sinkId(), context.subtask(), context.attempt());
            return;
        }
        Faults.reach(
                context.sinkId(),
                Faults.Point.valueOf(point.name()),
                context.subtask(),
                context.attempt(),
                id == null ? null : id.toString());
    }

    /** The database as it is, telling {@link Faults} of every writer that begins to open and every committer. */
    private static final class CountingStarts<IN> implements TransactionalDatabase<IN> {

        private static final long serialVersionUID = 1L;

        private final TransactionalDatabase<IN> database;

        CountingStarts(TransactionalDatabase<IN> database) {
            this.database = database;
        }

        @Override
        public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
            Faults.writerStarting(context);
            return database.openWriter(context);
        }

        @Override
        public CommitSession openCommitter(SubtaskContext context) throws IOException {
            Faults.committerOpening(context);
            return database.openCommitter(context);
        }

        @Override
        public void registerReleaseHooks(UserCodeClassLoader userCode) {
            database.registerReleaseHooks(userCode);
        }

        @Override
        public String target() {
            return database.target();
        }

        @Override
        public Wording wording() {
            return database.wording();
        }

        @Override
        public String toString() {
            return database.toString();
        }
    }
}
