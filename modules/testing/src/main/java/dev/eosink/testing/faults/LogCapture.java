/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.faults;

import org.apache.flink.util.ExceptionUtils;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import java.util.UUID;

/**
 * Every log event of every logger at INFO and above, each once, formatted with its stack trace, from {@link
 * #attach()} until {@link #detach()}: for tests of what the sink says in its logs (and never says,
 * such as a password).
 */
public final class LogCapture extends AbstractAppender {

    private final StringBuffer text = new StringBuffer();
    private final Level rootLevelBefore;

    private LogCapture(Level rootLevelBefore) {
        super("capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
        this.rootLevelBefore = rootLevelBefore;
    }

    /** Starts capturing, with the root logger at INFO until {@link #detach()}. */
    public static LogCapture attach() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        LoggerConfig root = configuration.getRootLogger();
        LogCapture capture = new LogCapture(root.getLevel());
        capture.start();
        root.setLevel(Level.INFO);
        // The root and every logger that does not pass its events on to it: each event once (an additive
        // logger's events reach the root's appenders too).
        configuration.getLoggers().values().stream()
                .filter(l -> l != root && !l.isAdditive())
                .forEach(l -> l.addAppender(capture, Level.INFO, null));
        root.addAppender(capture, Level.INFO, null);
        context.updateLoggers();
        return capture;
    }

    @Override
    public void append(LogEvent event) {
        text.append(event.getMessage().getFormattedMessage()).append('\n');
        if (event.getThrown() != null) {
            text.append(ExceptionUtils.stringifyException(event.getThrown())).append('\n');
        }
    }

    /** Everything captured so far, one event per line, stack traces included. */
    public String text() {
        return text.toString();
    }

    /** Stops capturing and sets the root logger's level back. */
    public void detach() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        configuration.getLoggers().values().forEach(l -> l.removeAppender(getName()));
        configuration.getRootLogger().removeAppender(getName());
        configuration.getRootLogger().setLevel(rootLevelBefore);
        context.updateLoggers();
        super.stop();
    }
}
