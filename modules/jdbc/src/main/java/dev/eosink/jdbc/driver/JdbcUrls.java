/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.driver;

import org.apache.flink.annotation.Internal;

import java.util.regex.Pattern;

/**
 * What the sinks read from a JDBC URL themselves, rather than leave to the driver: where it carries
 * a password, which messages must never show, and which driver properties it sets, which the sinks'
 * defaults must not override.
 */
@Internal
public final class JdbcUrls {

    /**
     * Every property whose name ends in "password", with a number or not: pgjdbc's {@code password} and {@code
     * sslpassword}, MySQL Connector/J's multi-factor {@code password1..3} and key store passwords, Jaybird's.
     */
    private static final Pattern PASSWORD_IN_URL = Pattern.compile("(?i)\\b([\\w.]*password\\d*)=[^&;]*");

    /** A password in the URL's user info, {@code //user:password@host}, as MySQL Connector/J takes it. */
    private static final Pattern PASSWORD_IN_USER_INFO = Pattern.compile("(//[^/:@?;\\[]*):[^@/?;]*@");

    private JdbcUrls() {}

    /** The URL with every password replaced by {@code ***}: the only form in which a message may show it. */
    public static String redact(String jdbcUrl) {
        if (jdbcUrl == null) {
            return null;
        }
        String withoutUserInfo = PASSWORD_IN_USER_INFO.matcher(jdbcUrl).replaceAll("$1:***@");
        return PASSWORD_IN_URL.matcher(withoutUserInfo).replaceAll("$1=***");
    }

    /**
     * Whether the URL's query ({@code ?a=1&b=2}, as pgjdbc and MariaDB Connector/J read it) sets the
     * driver property {@code key}, with or without a value.
     */
    public static boolean sets(String jdbcUrl, String key) {
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
}
