/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Freezes a server's processes (SIGSTOP) for a while and lets them go on (SIGCONT): a database that stops
 * answering without dropping a connection, as behind a storage stall or a paused virtual machine. Its
 * sessions, locks and transactions survive; its clients just wait.
 */
final class ProcessStall {

    private ProcessStall() {}

    /**
     * Stops {@code root}, then every process it has, for {@code pause}; resumes them all even if the
     * calling thread is interrupted meanwhile (the interrupt is kept for the caller). The root first, so that
     * it cannot start a process the stall would miss.
     */
    static void stall(ProcessHandle root, Duration pause) {
        // Recorded before they are signalled: whatever may have got SIGSTOP gets SIGCONT, however this ends.
        List<ProcessHandle> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread resume = new Thread(() -> resume(stopped), "resume stalled server");
        Runtime.getRuntime().addShutdownHook(resume); // a JVM that ends mid-stall leaves no server stopped
        boolean interrupted = false;
        try {
            stopped.add(root);
            signal("STOP", List.of(root));
            List<ProcessHandle> children = root.descendants().toList();
            stopped.addAll(children);
            signal("STOP", children);
            long until = System.nanoTime() + pause.toNanos();
            while (System.nanoTime() < until && !interrupted) {
                try {
                    TimeUnit.NANOSECONDS.sleep(Math.min(until - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(100)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            resume(stopped);
            try {
                Runtime.getRuntime().removeShutdownHook(resume);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs anyway
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** SIGCONT to each, tried three times: a server left stopped would hang everything after it. */
    private static void resume(List<ProcessHandle> stopped) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                signal("CONT", stopped);
                return;
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last;
    }

    private static void signal(String signal, List<ProcessHandle> processes) {
        if (processes.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        processes.forEach(p -> command.add(Long.toString(p.pid())));
        Process kill;
        try {
            kill = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "could not send SIG" + signal + " to " + command.subList(2, command.size()), e);
        }
        // Waited for even when interrupted: a server left stopped would hang everything after it. A process
        // that exited meanwhile makes kill fail for that one only; the others got the signal.
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!kill.waitFor(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("kill -" + signal + " did not end within 30 s");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
