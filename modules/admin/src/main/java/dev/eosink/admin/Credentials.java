/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Where and as whom the tool connects. The password comes from the environment or a file, never from
 * the command line (which other users of the machine can read), and is never printed.
 */
final class Credentials {

    static final String PASSWORD_ENV = "EOSINK_ADMIN_PASSWORD";

    private final String url;
    private final String user;
    private final String password;

    private Credentials(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    static Credentials of(String url, String user, String passwordFile, Map<String, String> env) throws AdminException {
        if (url == null) {
            throw new AdminException(
                    AdminException.USAGE,
                    "--url is required: jdbc:postgresql://host:port/db or "
                            + "jdbc:mariadb://host:port/db, the database the sink wrote to");
        }
        String password = env.get(PASSWORD_ENV);
        if (passwordFile != null) {
            try {
                password = Files.readString(Path.of(passwordFile), StandardCharsets.UTF_8)
                        .strip();
            } catch (IOException e) {
                throw new AdminException(
                        AdminException.USAGE, "cannot read --password-file " + passwordFile + ": " + e);
            }
        }
        return new Credentials(url, user, password);
    }

    String url() {
        return url;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    Properties properties() {
        Properties props = new Properties();
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }
        return props;
    }

    /** {@code text} with the password masked, for a driver's message that might echo it. */
    String scrub(String text) {
        if (text == null || password == null || password.isEmpty()) {
            return text;
        }
        return text.replace(password, "****");
    }

    @Override
    public String toString() {
        return "Credentials[" + dev.eosink.jdbc.driver.JdbcUrls.redact(url) + ", user " + user + "]";
    }
}
