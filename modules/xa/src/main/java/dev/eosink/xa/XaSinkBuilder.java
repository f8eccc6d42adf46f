/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.SinkSettings;
import dev.eosink.jdbc.JdbcSinkBuilderBase;
import dev.eosink.jdbc.JdbcSinkOptions;
import dev.eosink.jdbc.WriteMode;
import dev.eosink.jdbc.dialect.JdbcDialects;
import dev.eosink.jdbc.dialect.XaDriver;
import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.xa.internal.XaConnector;
import dev.eosink.xa.internal.XaDatabase;
import dev.eosink.xa.internal.XaNames;
import dev.eosink.xa.internal.XaSinkOptions;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.function.SerializableSupplier;

import javax.sql.XADataSource;

import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

/**
 * Builds an exactly-once sink into an XA database. Each setter checks its own argument; {@link
 * #build()} checks the rules that span several settings. The options it shares with {@code
 * PostgresSink.builder()} are those of {@link JdbcSinkBuilderBase} and mean the same; the protocol
 * options go to the same {@link SinkSettings}.
 *
 * <p><b>What the ownership guard promises on XA.</b> Each writer subtask holds a session lock (MariaDB
 * and MySQL {@code GET_LOCK}, PostgreSQL {@code pg_try_advisory_lock}) on a guard connection, so a
 * second live job with the same sink id is refused ({@link #claimWait}). The branches run on other
 * connections, each of which holds a second, per-subtask "branch" lock from before its first {@code
 * XA START} until it ends. A restarted writer takes the guard, then waits until it can take the
 * branch lock, and only then lists the prepared branches: a branch whose XA PREPARE was still
 * running on the server when the previous task manager died is prepared by then, and rolled back
 * or committed as its checkpoint decides, never left behind. If such a session does not end within
 * {@code claimWait}, the task fails naming it (and how to end it) and the restarted one waits again.
 * The generic dialect (any other XA database) has no session lock: it detects neither a second job
 * nor such a session, and a branch prepared after the restarted writer's recovery stays prepared,
 * holding its locks, until a later start rolls it back.
 *
 * <p><b>Timeouts.</b> {@link #networkTimeout} (default 120 s) bounds every driver call of an epoch,
 * a commit and a recovery; {@link #lockTimeout} (default 60 s) bounds how long the writer's branch
 * waits for a lock held by another transaction.
 *
 * <p><b>Upserts and refused records.</b> {@link #upsert} writes MariaDB's and MySQL's {@code INSERT ...
 * ON DUPLICATE KEY UPDATE}, {@link #changelog} deletes by key; the sink's user then also needs UPDATE
 * and DELETE on the table. Not through PostgreSQL's {@code PGXADataSource} (use {@code PostgresSink},
 * which upserts) nor the generic dialect: refused by {@link #build()} for a {@code jdbc:postgresql:}
 * URL, at start for an {@link #xaDataSource}. {@link #deadLetterTable} keeps refused records in the
 * epoch's own XA branch, on MariaDB, MySQL and PostgreSQL; its user needs SELECT and INSERT on it.
 */
@PublicEvolving
public final class XaSinkBuilder<IN> extends JdbcSinkBuilderBase<IN, XaSinkBuilder<IN>> {

    /**
     * Default of {@link #networkTimeout}, as the PostgreSQL sink's: longer than the default lock
     * timeout, so that a lock wait ends with its own clear error, and shorter than Flink's task
     * cancellation timeout (180 s).
     */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofSeconds(120);

    /** Default of {@link #lockTimeout}: the PostgreSQL writer's lock_timeout. */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(60);

    private SerializableSupplier<XADataSource> xaDataSource;
    private Duration networkTimeout = DEFAULT_NETWORK_TIMEOUT;
    private Duration lockTimeout = DEFAULT_LOCK_TIMEOUT;

    XaSinkBuilder() {
        super("xaDataSource", "XADataSource");
    }

    /**
     * {@code jdbc:mariadb://...}, {@code jdbc:mysql://...} or {@code jdbc:postgresql://...}. The job
     * brings the driver: {@code org.mariadb.jdbc:mariadb-java-client} for the first two, {@code
     * org.postgresql:postgresql} for the last (eosink-xa depends on neither); a sink whose driver is
     * missing fails when it opens its first connection, naming the artifact.
     */
    @Override
    public XaSinkBuilder<IN> jdbcUrl(String jdbcUrl) {
        XaConnector.of(jdbcUrl, new Properties()); // validates the scheme
        return setJdbcUrl(jdbcUrl);
    }

    /** Any database's {@link XADataSource}, built on the task managers (instead of a URL). */
    public XaSinkBuilder<IN> xaDataSource(SerializableSupplier<XADataSource> supplier) {
        this.xaDataSource = Objects.requireNonNull(supplier, "supplier");
        return this;
    }

    /**
     * How long the sink waits on the database before it gives up on a connection (default 120 s):
     * the bound of every driver call of an epoch (writes, XA START / END / PREPARE, rollback), of a
     * commit, and of recovery's calls on the guard connection. A call that overruns it, or whose task
     * Flink cancels, has its connection aborted: the writer's task fails over and replays the epoch,
     * the committer retries on a new connection (the marker decides if the branch is gone). A write
     * into a stalled network otherwise blocks for ever: neither a read timeout nor an interrupt ends
     * it. By URL it is also the driver's read timeout ({@code socketTimeout}, Jaybird's {@code soTimeout}:
     * {@link XaDriver#readTimeoutProperty}; MariaDB Connector/J and Jaybird count milliseconds, pgjdbc
     * seconds) with TCP keepalive on, unless set as a property or in the
     * URL; an {@link #xaDataSource} is used as configured. Keep it above {@link #lockTimeout} and the
     * longest statement you expect (an XA PREPARE or commit of a big branch that waits for a
     * synchronous replica). {@link Duration#ZERO} turns the bound off; a call of a task that Flink
     * cancels is aborted at once either way.
     */
    public XaSinkBuilder<IN> networkTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || (!timeout.isZero() && timeout.compareTo(Duration.ofSeconds(1)) < 0)) {
            throw new IllegalArgumentException(
                    "networkTimeout must be at least 1 s, or zero to wait for ever; was " + timeout);
        }
        this.networkTimeout = timeout;
        return this;
    }

    /**
     * How long a statement of the writer's branch waits for a lock held by another transaction
     * (default 60 s) before it fails the task with a message naming the lock timeout and where to
     * find the holder: usually a prepared branch waiting for its commit or rollback, which may need
     * this very task to go on, so an unbounded wait could last for ever. MariaDB and MySQL: the
     * session's {@code innodb_lock_wait_timeout} (row locks) and {@code lock_wait_timeout} (metadata
     * locks), in whole seconds (rounded up); PostgreSQL: {@code lock_timeout}. The generic dialect
     * sets none (the network timeout still bounds the wait). At least 1 s, and below a non-zero
     * {@link #networkTimeout}, so that a lock wait ends with its own error rather than an abort.
     */
    public XaSinkBuilder<IN> lockTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("lockTimeout must be at least 1 s; was " + timeout);
        }
        this.lockTimeout = timeout;
        return this;
    }

    @Override
    protected boolean hasDataSource() {
        return xaDataSource != null;
    }

    @Override
    protected String upsertClause() {
        return "ON DUPLICATE KEY UPDATE";
    }

    @Override
    protected void checkOwnOptions(JdbcSinkOptions<IN> options) {
        if (options.writeMode() instanceof WriteMode.Upserts<IN>
                && options.jdbcUrl()
                        .filter(url -> url.startsWith("jdbc:postgresql:"))
                        .isPresent()) {
            throw misconfigured("upsert(...) through XA is supported on MariaDB and MySQL, not on PostgreSQL: "
                    + "use PostgresSink.builder().upsert(...), which upserts exactly once by PostgreSQL's own "
                    + "two-phase commit");
        }
        // A name the URL's dialect cannot take: refused here as the writer would refuse it at start.
        options.jdbcUrl()
                .flatMap(url -> XaNames.problem(JdbcDialects.forUrl(url), options))
                .ifPresent(problem -> {
                    throw misconfigured(problem);
                });
        if (!networkTimeout.isZero() && lockTimeout.compareTo(networkTimeout) >= 0) {
            throw misconfigured("lockTimeout (" + lockTimeout.toMillis() + " ms) must be shorter than networkTimeout ("
                    + networkTimeout.toMillis() + " ms): a lock wait would otherwise end as an aborted connection "
                    + "instead of with its own error. Lower lockTimeout or raise networkTimeout.");
        }
    }

    /**
     * The driver properties: the user's, plus a read timeout of {@link #networkTimeout} and TCP
     * keepalive where the user set neither (in the properties or the URL), so that no read waits for
     * ever on a silent server and an idle connection to a vanished server is noticed.
     */
    private Properties driverProperties(JdbcSinkOptions<IN> options) {
        Properties effective = options.properties();
        String url = options.jdbcUrl().orElseThrow();
        if (!networkTimeout.isZero()) {
            long millis = networkTimeout.toMillis();
            setUnlessGiven(
                    effective,
                    url,
                    readTimeoutProperty(url),
                    url.startsWith("jdbc:postgresql:")
                            ? String.valueOf((millis + 999) / 1000) // pgjdbc: seconds
                            : String.valueOf(millis)); // MariaDB Connector/J, Jaybird: milliseconds
        }
        setUnlessGiven(effective, url, "tcpKeepAlive", "true");
        return effective;
    }

    /** The URL's driver's read timeout property ({@link XaDriver#readTimeoutProperty}), {@code socketTimeout} if none. */
    private static String readTimeoutProperty(String url) {
        return JdbcDialects.forUrl(url)
                .xa()
                .driver(url, XaSinkBuilder.class.getClassLoader())
                .map(XaDriver::readTimeoutProperty)
                .orElse("socketTimeout");
    }

    private static void setUnlessGiven(Properties effective, String url, String key, String value) {
        if (!effective.containsKey(key) && !JdbcUrls.sets(url, key)) {
            effective.setProperty(key, value);
        }
    }

    @Override
    protected XaDatabase<IN> database(JdbcSinkOptions<IN> common) {
        XaConnector connector = xaDataSource != null
                ? XaConnector.of(xaDataSource)
                : XaConnector.of(common.jdbcUrl().orElseThrow(), driverProperties(common));
        return new XaDatabase<>(new XaSinkOptions<>(connector, common, networkTimeout, lockTimeout));
    }
}
