package dev.eosink.postgres;

import org.apache.flink.util.function.SerializableSupplier;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * How the sink reaches PostgreSQL: a JDBC URL with driver properties, or a serializable supplier of a
 * {@link DataSource}. Serializable configuration, shipped with the job.
 *
 * <p>Credentials never leave this class: {@link #toString()} and every message render the URL with
 * its password removed, and properties are never printed.
 */
public final class PostgresConnection implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Pattern PASSWORD_IN_URL =
            Pattern.compile("(?i)(password|sslpassword)=[^&;]*");

    private final String url;
    private final Properties properties;
    private final SerializableSupplier<DataSource> dataSource;

    private PostgresConnection(String url, Properties properties, SerializableSupplier<DataSource> dataSource) {
        this.url = url;
        this.properties = properties;
        this.dataSource = dataSource;
    }

    /** A JDBC URL ({@code jdbc:postgresql://host:port/db}) and driver properties (user, password, ssl...). */
    public static PostgresConnection of(String jdbcUrl, Properties properties) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                    "Not a PostgreSQL JDBC URL: '"
                            + redact(jdbcUrl)
                            + "'. Expected jdbc:postgresql://host:port/database");
        }
        Properties copy = new Properties();
        copy.putAll(properties);
        return new PostgresConnection(jdbcUrl, copy, null);
    }

    /** Connections from a {@link DataSource} built on the task manager by {@code supplier}. */
    public static PostgresConnection of(SerializableSupplier<DataSource> supplier) {
        return new PostgresConnection(null, null, Objects.requireNonNull(supplier, "supplier"));
    }

    /** Opens one connection, named {@code applicationName} in pg_stat_activity. */
    public Connection open(String applicationName) throws SQLException {
        Connection connection;
        if (dataSource != null) {
            connection = dataSource.get().getConnection();
        } else {
            Properties props = new Properties();
            props.putAll(properties);
            props.setProperty("ApplicationName", applicationName);
            connection = DriverManager.getConnection(url, props);
        }
        if (dataSource != null) {
            try (PreparedStatement s = connection.prepareStatement("SELECT set_config('application_name', ?, false)")) {
                s.setString(1, applicationName);
                s.execute();
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    /**
     * A small HikariCP pool for a committer: autocommit on (COMMIT PREPARED cannot run inside a
     * transaction block), no failure at construction when the database is down (the committer
     * retries instead).
     */
    public HikariDataSource pool(String poolName, String applicationName, int maxSize) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setMaximumPoolSize(maxSize);
        config.setMinimumIdle(1);
        config.setAutoCommit(true);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(30_000);
        // application_name through SQL works for URL and DataSource alike; the name is plain ASCII.
        config.setConnectionInitSql("SET application_name = '" + applicationName.replace("'", "''") + "'");
        if (dataSource != null) {
            config.setDataSource(dataSource.get());
        } else {
            config.setJdbcUrl(url);
            config.setDataSourceProperties(properties);
        }
        return new HikariDataSource(config);
    }

    /** Whether a JDBC URL sets the driver property {@code key} among its parameters. */
    static boolean urlSets(String jdbcUrl, String key) {
        int query = jdbcUrl.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (String parameter : jdbcUrl.substring(query + 1).split("&")) {
            if (parameter.equals(key) || parameter.startsWith(key + "=")) {
                return true;
            }
        }
        return false;
    }

    /** A driver property as the sink passes it (not the URL's), or null; never the password. */
    String property(String key) {
        return properties == null || key.toLowerCase(java.util.Locale.ROOT).contains("password") ? null : properties.getProperty(key);
    }

    /** The URL without credentials, or "DataSource supplier", for messages. */
    public String describe() {
        return dataSource != null ? "DataSource from " + dataSource.getClass().getName() : redact(url);
    }

    /** Removes passwords from a JDBC URL. */
    public static String redact(String jdbcUrl) {
        return jdbcUrl == null ? null : PASSWORD_IN_URL.matcher(jdbcUrl).replaceAll("$1=***");
    }

    @Override
    public String toString() {
        return "PostgresConnection{" + describe() + "}";
    }
}
