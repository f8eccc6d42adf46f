/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.util.UserCodeClassLoader;

import java.lang.reflect.Method;
import java.util.Optional;

/**
 * The user-code class loader of a committer's task, with its release hooks: what a writer gets from
 * {@code WriterInitContext#getUserCodeClassLoader()} and Flink's {@link CommitterInitContext} does not
 * offer. A committer needs it as a writer does: with chaining disabled it is a task of its own, which
 * may run on a TaskManager where no writer of its job runs (Flink spreads tasks over the slots with
 * {@code taskmanager.load-balance.mode: TASKS}, and a committer may then land in another slot than its
 * writer), and it loads the JDBC driver there.
 *
 * <p>Flink's committer operator makes the init context over its task's runtime context, which does
 * register release hooks ({@link RuntimeContext#registerUserCodeClassLoaderReleaseHookIfAbsent}), and
 * keeps it in the context ({@code InitContextBase#getRuntimeContext()}: package-private on Flink 1.20,
 * 2.0 and 2.1, public from 2.2). This reaches it by reflection, the one way that works on every line;
 * a context without it (not Flink's, or a Flink that changed it) gives none.
 */
@Internal
public final class CommitterClassLoader implements UserCodeClassLoader {

    private final RuntimeContext runtime;

    private CommitterClassLoader(RuntimeContext runtime) {
        this.runtime = runtime;
    }

    /** The class loader of the task that {@code context} is Flink's committer init context of, if it is one. */
    public static Optional<UserCodeClassLoader> of(CommitterInitContext context) {
        for (Class<?> type = context.getClass(); type != null; type = type.getSuperclass()) {
            Method getter;
            try {
                getter = type.getDeclaredMethod("getRuntimeContext");
            } catch (NoSuchMethodException e) {
                continue;
            }
            try {
                getter.setAccessible(true);
                Object runtime = getter.invoke(context);
                return runtime instanceof RuntimeContext
                        ? Optional.of(new CommitterClassLoader((RuntimeContext) runtime))
                        : Optional.empty();
            } catch (ReflectiveOperationException | RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    @Override
    public ClassLoader asClassLoader() {
        return runtime.getUserCodeClassLoader();
    }

    @Override
    public void registerReleaseHookIfAbsent(String releaseHookName, Runnable releaseHook) {
        runtime.registerUserCodeClassLoaderReleaseHookIfAbsent(releaseHookName, releaseHook);
    }

    @Override
    public String toString() {
        return "CommitterClassLoader{" + runtime.getTaskInfo().getTaskNameWithSubtasks() + "}";
    }
}
