/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

/**
 * A failure the tool reports as one message and a non-zero exit code, without a stack trace: a wrong
 * path, a checkpoint without the sink's state, a database it cannot use, a live job. The message says
 * what is wrong and what to do; it never holds a password.
 */
final class AdminException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The exit code of a usage error, a failure, and a refusal while a live job owns the sink. */
    static final int USAGE = 2;

    static final int FAILED = 1;
    static final int REFUSED = 3;

    private final int exitCode;

    AdminException(String message) {
        this(FAILED, message, null);
    }

    AdminException(int exitCode, String message) {
        this(exitCode, message, null);
    }

    AdminException(String message, Throwable cause) {
        this(FAILED, message, cause);
    }

    AdminException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
