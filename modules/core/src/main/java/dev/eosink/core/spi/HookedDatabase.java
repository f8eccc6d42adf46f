/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.LifecycleHook.Point;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.UserCodeClassLoader;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link TransactionalDatabase} that calls a {@link LifecycleHook} at every point of the
 * lifecycle and otherwise does exactly what the wrapped database does. The sink's own wrapper, made by
 * {@code ExactlyOnceSink.withLifecycleHook}: a database module never needs it.
 */
@Internal
public final class HookedDatabase<IN> implements TransactionalDatabase<IN> {

    private static final long serialVersionUID = 1L;

    private final TransactionalDatabase<IN> database;
    private final LifecycleHook hook;

    public HookedDatabase(TransactionalDatabase<IN> database, LifecycleHook hook) {
        this.database = Objects.requireNonNull(database, "database");
        this.hook = Objects.requireNonNull(hook, "hook");
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
    public void registerReleaseHooks(UserCodeClassLoader userCode) {
        database.registerReleaseHooks(userCode);
    }

    @Override
    public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
        WriterSession<IN> session = database.openWriter(context);
        try {
            hook.at(Point.WRITER_OPENED, context, null);
        } catch (IOException | RuntimeException e) {
            session.close();
            throw e;
        }
        EpochWriter<IN> hooked = new ForwardingEpochWriter<>(session.epoch()) {
            @Override
            public void write(IN record, long positionInEpoch) throws IOException {
                hook.at(Point.WRITE, context, null);
                delegate.write(record, positionInEpoch);
            }

            @Override
            public void prepare(TransactionId id, long rows) throws IOException {
                hook.at(Point.BEFORE_PREPARE, context, id);
                delegate.prepare(id, rows);
                hook.at(Point.AFTER_PREPARE, context, id);
            }
        };
        return new WriterSession<>() {
            @Override
            public Recovery recovery() {
                return session.recovery();
            }

            @Override
            public EpochWriter<IN> epoch() {
                return hooked;
            }

            @Override
            public Optional<CarriedWrites> carriedWrites() {
                return session.carriedWrites();
            }

            @Override
            public void close() throws IOException {
                session.close();
            }
        };
    }

    @Override
    public CommitSession openCommitter(SubtaskContext context) throws IOException {
        CommitSession session = database.openCommitter(context);
        return new CommitSession() {
            @Override
            public Attempt commit(TransactionId id) throws IOException {
                hook.at(Point.BEFORE_COMMIT, context, id);
                Attempt attempt = session.commit(id);
                hook.at(Point.AFTER_COMMIT, context, id);
                return attempt;
            }

            @Override
            public boolean isMarked(TransactionId id) throws IOException {
                return session.isMarked(id);
            }

            @Override
            public long pruneMarkers(Duration retention) throws IOException {
                return session.pruneMarkers(retention);
            }

            @Override
            public void close() throws IOException {
                session.close();
            }
        };
    }

    @Override
    public String toString() {
        return "HookedDatabase{" + database + "}";
    }
}
