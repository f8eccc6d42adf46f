/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.bench;

import java.util.Locale;

/** The database a benchmark runs against ({@code --database}); the CSV's {@code database} column. */
enum Database {
    POSTGRESQL,
    MARIADB;

    /** The name in the CSV and on the command line. */
    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Database byId(String id) {
        for (Database d : values()) {
            if (d.id().equals(id)) {
                return d;
            }
        }
        throw new IllegalArgumentException("--database: postgresql or mariadb, not '" + id + "'");
    }

    static boolean isMariaDb(String url) {
        return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
    }
}
