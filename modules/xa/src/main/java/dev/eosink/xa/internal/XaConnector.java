package dev.eosink.xa.internal;

import dev.eosink.jdbc.driver.JdbcUrls;

import org.apache.flink.util.function.SerializableSupplier;

import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

import javax.sql.XAConnection;
import javax.sql.XADataSource;

import java.io.Serializable;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * Where XA connections come from: a JDBC URL of a database whose XADataSource this module knows
 * (MariaDB/MySQL through MariaDB Connector/J, PostgreSQL through pgjdbc) with user, password and
 * driver properties, or the user's serializable supplier of any {@link XADataSource}.
 *
 * <p>Credentials never leave this class: {@link #describe()} renders the URL without passwords and
 * never prints properties.
 */
public final class XaConnector implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String url;
    private final Properties properties;
    private final SerializableSupplier<XADataSource> supplier;

    private XaConnector(String url, Properties properties, SerializableSupplier<XADataSource> supplier) {
        this.url = url;
        this.properties = properties;
        this.supplier = supplier;
    }

    /** {@code jdbc:mariadb://...}, {@code jdbc:mysql://...} or {@code jdbc:postgresql://...}. */
    public static XaConnector of(String jdbcUrl, Properties properties) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!isKnownUrl(jdbcUrl)) {
            throw new IllegalArgumentException("No XADataSource known for '" + JdbcUrls.redact(jdbcUrl)
                    + "': by URL the XA sink speaks jdbc:mariadb:, jdbc:mysql: and jdbc:postgresql:. Remedy: give "
                    + "xaDataSource(() -> yourDriversXADataSource) for any other XA database.");
        }
        Properties copy = new Properties();
        copy.putAll(properties);
        return new XaConnector(jdbcUrl, copy, null);
    }

    public static XaConnector of(SerializableSupplier<XADataSource> supplier) {
        return new XaConnector(null, null, Objects.requireNonNull(supplier, "supplier"));
    }

    public static boolean isKnownUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:") || jdbcUrl.startsWith("jdbc:postgresql:");
    }

    /** Opens one XA connection; {@code applicationName} names it where the database shows sessions. */
    public XAConnection open(String applicationName) throws SQLException {
        return dataSource(applicationName).getXAConnection();
    }

    private XADataSource dataSource(String applicationName) throws SQLException {
        if (supplier != null) {
            return supplier.get();
        }
        if (url.startsWith("jdbc:postgresql:")) {
            // PGXADataSource asks java.sql.DriverManager, but from pgjdbc's own class, whose class loader
            // has just loaded and registered its driver (BaseDataSource's static initializer does): that
            // lookup finds the driver of this job's copy of pgjdbc, whatever earlier jobs registered on
            // a session cluster. (The PostgreSQL sink's own connections by URL cannot rely on that: see
            // its PostgresConnection.) The registration is undone when the job's class loader is released
            // (XaDatabase.registerReleaseHooks).
            PGXADataSource pg = new PGXADataSource();
            pg.setUrl(url);
            for (String key : properties.stringPropertyNames()) {
                pg.setProperty(key, properties.getProperty(key));
            }
            pg.setApplicationName(applicationName);
            return pg;
        }
        // MariaDB Connector/J takes options in the URL only; user and password go through setters so that
        // they never appear in a URL that a message could print. Its DataSource connects through its driver
        // directly, never through DriverManager (the driver still registers itself when loaded).
        StringBuilder full = new StringBuilder(url.startsWith("jdbc:mysql:") ? url + (url.contains("?") ? "&" : "?")
                + "permitMysqlScheme" : url);
        String separator = full.indexOf("?") >= 0 ? "&" : "?";
        for (String key : properties.stringPropertyNames()) {
            if (key.equals("user") || key.equals("password")) {
                continue;
            }
            full.append(separator).append(encode(key)).append('=').append(encode(properties.getProperty(key)));
            separator = "&";
        }
        // program_name in performance_schema.session_connect_attrs. The name is [A-Za-z0-9_.-/] (sink ids
        // are), none of which the URL or the attribute list treats specially.
        full.append(separator).append("connectionAttributes=program_name:").append(applicationName);
        MariaDbDataSource maria = new MariaDbDataSource(full.toString());
        if (properties.getProperty("user") != null) {
            maria.setUser(properties.getProperty("user"));
        }
        if (properties.getProperty("password") != null) {
            maria.setPassword(properties.getProperty("password"));
        }
        return maria;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** The URL without credentials, or the supplier's class: for messages. */
    public String describe() {
        return supplier != null ? "XADataSource from " + supplier.getClass().getName() : JdbcUrls.redact(url);
    }

    @Override
    public String toString() {
        return "XaConnector{" + describe() + "}";
    }
}
