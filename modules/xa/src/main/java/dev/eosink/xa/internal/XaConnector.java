package dev.eosink.xa.internal;

import dev.eosink.jdbc.driver.JdbcUrls;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.function.SerializableSupplier;

import javax.sql.XAConnection;
import javax.sql.XADataSource;

import java.io.Serializable;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * Where XA connections come from: a JDBC URL of a database whose XADataSource this module knows
 * (MariaDB/MySQL through MariaDB Connector/J, PostgreSQL through pgjdbc; see {@link XaDriver}) with
 * user, password and driver properties, or the user's serializable supplier of any {@link
 * XADataSource}.
 *
 * <p>Credentials never leave this class: {@link #describe()} renders the URL without passwords and
 * never prints properties.
 */
@Internal
public final class XaConnector implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Where the connections come from: one of the two, chosen by the builder. */
    private sealed interface Source extends Serializable permits ByUrl, Supplied {
        /** For messages: never credentials. */
        String describe();
    }

    /** A URL whose driver this module knows, with the driver properties (credentials among them). */
    private record ByUrl(String url, Properties properties) implements Source {
        @Override
        public String describe() {
            return JdbcUrls.redact(url);
        }

        /** Never the properties, which a record would print: they hold the password. */
        @Override
        public String toString() {
            return describe();
        }
    }

    /** The user's supplier of any XADataSource, called on the task managers. */
    private record Supplied(SerializableSupplier<XADataSource> supplier) implements Source {
        @Override
        public String describe() {
            return "XADataSource from " + supplier.getClass().getName();
        }
    }

    private final Source source;

    private XaConnector(Source source) {
        this.source = source;
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
        return new XaConnector(new ByUrl(jdbcUrl, copy));
    }

    public static XaConnector of(SerializableSupplier<XADataSource> supplier) {
        return new XaConnector(new Supplied(Objects.requireNonNull(supplier, "supplier")));
    }

    public static boolean isKnownUrl(String jdbcUrl) {
        return XaDriver.forUrl(jdbcUrl) != null;
    }

    /**
     * Opens one XA connection; {@code applicationName} names it where the database shows sessions.
     *
     * @throws IllegalStateException by URL, when the URL's driver is not on the class path (naming the
     *     Maven artifact to add)
     */
    public XAConnection open(String applicationName) throws SQLException {
        return dataSource(applicationName).getXAConnection();
    }

    private XADataSource dataSource(String applicationName) throws SQLException {
        if (source instanceof Supplied supplied) {
            return supplied.supplier().get();
        }
        ByUrl byUrl = (ByUrl) source;
        String url = byUrl.url();
        Properties properties = byUrl.properties();
        XaDriver driver = XaDriver.forUrl(url);
        // Before any class of the driver is touched: a missing driver fails with its remedy, not with a
        // NoClassDefFoundError. The classes that refer to a driver are loaded for its URLs alone.
        driver.require(XaConnector.class.getClassLoader(), JdbcUrls.redact(url));
        switch (driver) {
            case PGJDBC:
                return PgJdbcXaSource.create(url, properties, applicationName);
            case MARIADB:
                return MariaDbXaSource.create(url, properties, applicationName);
            default:
                throw new IllegalStateException("no XADataSource for " + driver);
        }
    }

    /** The URL without credentials, or the supplier's class: for messages. */
    public String describe() {
        return source.describe();
    }

    @Override
    public String toString() {
        return "XaConnector{" + describe() + "}";
    }
}
