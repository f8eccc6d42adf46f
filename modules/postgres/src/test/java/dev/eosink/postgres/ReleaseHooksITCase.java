/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.TransactionalDatabase;
import dev.eosink.core.spi.Wording;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every task that opens the sink's sessions registers the database's release hooks on its own
 * user-code class loader first ({@code TransactionalDatabase#registerReleaseHooks}): a writer, and a
 * committer too, also where it is a task of its own (chaining disabled by the sink). Such a committer may
 * run on a TaskManager where no writer of its job runs (tasks spread over the slots: {@code
 * taskmanager.load-balance.mode: TASKS}), and loads the JDBC driver there; the driver then stays
 * registered with {@code DriverManager} after the job, with every class of the job (see {@code
 * SessionClusterITCase}), unless the committer's own task registered the hook that deregisters it.
 *
 * <p>The test's database records, per task thread, the hooks the real database registered and on which
 * class loader; when a writer or a committer opens, it notes whether its own thread had registered some
 * on the class loader the thread runs with (Flink sets a task thread's context class loader to the job's
 * user-code class loader).
 */
class ReleaseHooksITCase extends ExactlyOnceTestBase {

    @ParameterizedTest(name = "sink chained: {0}")
    @ValueSource(booleans = {true, false})
    void everyWriterAndCommitterRegistersTheReleaseHooksOnItsOwnClassLoaderBeforeItOpens(boolean chained)
            throws Exception {
        ExactlyOnceSink<Long> built = sinkBuilder(sinkId, table).build();
        ExactlyOnceSink<Long> sink = new ExactlyOnceSink<>(
                new HookRecordingDatabase<>(built.database()), built.settings(), built.distribution());
        long n = 2_000;
        StreamExecutionEnvironment env = env(2, 200);
        DataStreamSink<Long> out = ids(env, n, 4_000).sinkTo(sink);
        if (!chained) {
            out.disableChaining();
        }
        env.execute("release hooks, sink chained: " + chained);

        assertThat(HookRecordingDatabase.opened(sinkId))
                .as("writers and committers as they opened, each with whether its own task had registered release "
                        + "hooks on its class loader before")
                .contains(
                        "writer 0: registered",
                        "writer 1: registered",
                        "committer 0: registered",
                        "committer 1: registered")
                .allSatisfy(o -> assertThat(o).endsWith(": registered"));
        assertExactlyOnce(n);
    }

    /** The real database, recording who registered release hooks and who opened sessions. */
    static final class HookRecordingDatabase<IN> implements TransactionalDatabase<IN> {
        private static final long serialVersionUID = 1L;

        /** Thread -> the class loaders it registered release hooks on (through the real database). */
        private static final Map<Thread, List<ClassLoader>> REGISTERED = new ConcurrentHashMap<>();
        /** Sink id -> "writer 0: registered", "committer 1: nothing registered", ... as they opened. */
        private static final Map<String, List<String>> OPENED = new ConcurrentHashMap<>();

        private final TransactionalDatabase<IN> real;

        HookRecordingDatabase(TransactionalDatabase<IN> real) {
            this.real = real;
        }

        static List<String> opened(String sinkId) {
            List<String> opened = OPENED.getOrDefault(sinkId, List.of());
            synchronized (opened) {
                return new ArrayList<>(opened);
            }
        }

        @Override
        public void registerReleaseHooks(UserCodeClassLoader userCode) {
            real.registerReleaseHooks(new UserCodeClassLoader() {
                @Override
                public ClassLoader asClassLoader() {
                    return userCode.asClassLoader();
                }

                @Override
                public void registerReleaseHookIfAbsent(String releaseHookName, Runnable releaseHook) {
                    REGISTERED
                            .computeIfAbsent(
                                    Thread.currentThread(), t -> Collections.synchronizedList(new ArrayList<>()))
                            .add(userCode.asClassLoader());
                    userCode.registerReleaseHookIfAbsent(releaseHookName, releaseHook);
                }
            });
        }

        @Override
        public WriterSession<IN> openWriter(SubtaskContext context) throws IOException {
            note("writer", context);
            return real.openWriter(context);
        }

        @Override
        public CommitSession openCommitter(SubtaskContext context) throws IOException {
            note("committer", context);
            return real.openCommitter(context);
        }

        private static void note(String role, SubtaskContext context) {
            Thread thread = Thread.currentThread();
            boolean registered = REGISTERED.getOrDefault(thread, List.of()).contains(thread.getContextClassLoader());
            OPENED.computeIfAbsent(context.sinkId(), k -> Collections.synchronizedList(new ArrayList<>()))
                    .add(role + " " + context.subtask() + ": " + (registered ? "registered" : "nothing registered"));
        }

        @Override
        public String target() {
            return real.target();
        }

        @Override
        public Wording wording() {
            return real.wording();
        }
    }
}
