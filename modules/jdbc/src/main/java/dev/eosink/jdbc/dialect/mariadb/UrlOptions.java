/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/** Driver properties as URL options, for the Connector/Js, which take options in the URL. */
final class UrlOptions {

    private UrlOptions() {}

    /**
     * {@code url} with every property but {@code user} and {@code password} (which go through setters, so that they
     * never appear in a URL a message could print) appended as an option.
     */
    static StringBuilder append(String url, Properties properties) {
        StringBuilder full = new StringBuilder(url);
        String separator = url.contains("?") ? "&" : "?";
        for (String key : properties.stringPropertyNames()) {
            if (key.equals("user") || key.equals("password")) {
                continue;
            }
            full.append(separator).append(encode(key)).append('=').append(encode(properties.getProperty(key)));
            separator = "&";
        }
        return full;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
