/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.driver;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Deregisters, when Flink releases a job's user-code class loader on a TaskManager, the JDBC drivers
 * that this class loader registered with {@code java.sql.DriverManager}.
 *
 * <p>Why: a driver registers itself with {@code DriverManager} as soon as its class is loaded (pgjdbc
 * and MariaDB Connector/J in their static initializers; {@code DriverManager} also loads every driver
 * on the class path the first time it is asked, once per JVM). That list lives as long as the JVM,
 * and each driver in it refers to its class, hence to its class loader and every class of its job. On
 * a session cluster, where a TaskManager runs one job after the other, each job with its own class
 * loader and its own copy of the drivers in its jar, every finished job would stay in memory.
 *
 * <p>Only drivers that the releasing class loader loaded itself are deregistered, never one that it
 * gets from a parent, and never one of the JVM's own class path: a driver in Flink's {@code lib/} serves
 * every job, and in a MiniCluster the job's classes, drivers included, come from the application class
 * loader, which is never released.
 */
@Internal
public final class JdbcDrivers {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcDrivers.class);

    /** The hook's name: one per class loader, however many subtasks and sinks register it. */
    static final String RELEASE_HOOK = "eosink: deregister the JDBC drivers of the job's class loader";

    private JdbcDrivers() {}

    /** Has {@link #deregisterLoadedBy} run for this class loader when Flink releases it. */
    public static void deregisterOnRelease(UserCodeClassLoader userCode) {
        ClassLoader loader = userCode.asClassLoader();
        userCode.registerReleaseHookIfAbsent(RELEASE_HOOK, () -> deregisterLoadedBy(loader));
    }

    /**
     * Deregisters every driver registered with {@code DriverManager} whose class {@code loader} loaded
     * itself (not through a parent). Returns their class names.
     *
     * <p>{@code DriverManager} shows and deregisters only drivers that the caller's class loader resolves
     * to the very same class, so this sees the job's drivers when it comes from the job's jar, with the
     * drivers. (A sink in Flink's {@code lib/} needs its drivers there too, where they are not the job's,
     * and does not see drivers that the job's own code loads.) Listing the drivers makes {@code
     * DriverManager} resolve each registered driver's class name through this class's loader, which may
     * load, and so register, a driver of that name for the first time: the next pass finds it.
     */
    static List<String> deregisterLoadedBy(ClassLoader loader) {
        List<String> deregistered = new ArrayList<>();
        if (isSystemOrAncestor(loader)) {
            // Flink may hand a job without jars the application class loader itself, and run release
            // hooks on it: that class path is never released, and its drivers serve everyone.
            return deregistered;
        }
        for (int pass = 0; pass < 3; pass++) {
            boolean found = false;
            for (Driver driver : Collections.list(DriverManager.getDrivers())) {
                if (!loadedBy(driver.getClass(), loader)) {
                    continue;
                }
                try {
                    DriverManager.deregisterDriver(driver);
                    deregistered.add(driver.getClass().getName());
                    found = true;
                } catch (SQLException | RuntimeException e) {
                    LOG.warn(
                            "Could not deregister JDBC driver {} of a finished job's class loader: it keeps that class "
                                    + "loader and the job's classes in memory. Remedy: put the driver into Flink's lib/ "
                                    + "directory, so that one copy serves every job.",
                            driver.getClass().getName(),
                            e);
                }
            }
            if (!found) {
                break;
            }
        }
        if (!deregistered.isEmpty()) {
            LOG.info("Deregistered JDBC driver(s) {} of a job's class loader that Flink releases", deregistered);
        }
        return deregistered;
    }

    /**
     * Whether {@code loader} loaded {@code type} itself: it resolves the name to this very class, and
     * no parent of {@code loader} defined it. Flink's user-code class loader is a wrapper around the
     * loader that defines the job's classes, so "defined by {@code loader}" alone would not do.
     */
    static boolean loadedBy(Class<?> type, ClassLoader loader) {
        ClassLoader defining = type.getClassLoader();
        if (defining == null || isSystemOrAncestor(defining)) {
            return false;
        }
        if (defining == loader) {
            return true;
        }
        for (ClassLoader parent = loader.getParent(); parent != null; parent = parent.getParent()) {
            if (defining == parent) {
                return false;
            }
        }
        try {
            return Class.forName(type.getName(), false, loader) == type;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return false;
        }
    }

    /** The application class loader or one of its parents: what the JVM was started with. */
    private static boolean isSystemOrAncestor(ClassLoader loader) {
        for (ClassLoader l = ClassLoader.getSystemClassLoader(); l != null; l = l.getParent()) {
            if (l == loader) {
                return true;
            }
        }
        return false;
    }
}
