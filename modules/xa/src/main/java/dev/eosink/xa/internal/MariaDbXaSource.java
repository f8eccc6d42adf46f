package dev.eosink.xa.internal;

import org.mariadb.jdbc.MariaDbDataSource;

import javax.sql.XADataSource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Properties;

/**
 * MariaDB Connector/J's XADataSource for a {@code jdbc:mariadb:} or {@code jdbc:mysql:} URL. This
 * class alone (with {@link MariaDbAbort}) refers to the driver, and is loaded for such URLs only
 * ({@link XaConnector}): the driver is optional for sinks into other databases.
 */
final class MariaDbXaSource {

    private MariaDbXaSource() {}

    /**
     * Connector/J takes options in the URL only; user and password go through setters so that they
     * never appear in a URL that a message could print. Its DataSource connects through its driver
     * directly, never through DriverManager (the driver still registers itself when loaded).
     */
    static XADataSource create(String url, Properties properties, String applicationName) throws SQLException {
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
}
