/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect;

import dev.eosink.jdbc.dialect.generic.GenericDialect;
import dev.eosink.jdbc.dialect.mariadb.MariaDbDialect;
import dev.eosink.jdbc.dialect.postgres.PostgresDialect;
import dev.eosink.jdbc.sql.SqlIdentifier;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Dialects are found by URL through the services file, each once, and the generic one takes the rest. */
class JdbcDialectsTest {

    @Test
    void theBuiltInDialectsAreFoundByTheirUrls() {
        assertThat(JdbcDialects.forUrl("jdbc:postgresql://h:5432/db")).isInstanceOf(PostgresDialect.class);
        assertThat(JdbcDialects.forUrl("jdbc:mariadb://h:3306/db")).isInstanceOf(MariaDbDialect.class);
        assertThat(JdbcDialects.forUrl("jdbc:mysql://h:3306/db")).isInstanceOf(MariaDbDialect.class);
        assertThat(JdbcDialects.all())
                .extracting(d -> (Class) d.getClass())
                .containsOnlyOnce(PostgresDialect.class, MariaDbDialect.class);
    }

    @Test
    void aUrlNoDialectAcceptsGetsTheGenericOneNamedAfterItsScheme() {
        JdbcDialect dialect = JdbcDialects.forUrl("jdbc:sqlserver://h:1433;databaseName=db");
        assertThat(dialect).isInstanceOf(GenericDialect.class);
        assertThat(dialect.name()).isEqualTo("sqlserver");
        assertThat(JdbcDialects.find("jdbc:sqlserver://h")).isEmpty();
        // What the generic dialect lacks is absent, not a method that does nothing.
        assertThat(dialect.sessionLocks()).isEmpty();
        assertThat(dialect.lockTimeout()).isEmpty();
        assertThat(dialect.writes().upsertSql(new SqlIdentifier(null, "t"), List.of("k", "v"), List.of("k"), 1))
                .isEmpty();
        assertThat(dialect.markers(new SqlIdentifier(null, "m")).committedAfterSql())
                .isEmpty();
        assertThat(dialect.xa().driver("jdbc:sqlserver://h", getClass().getClassLoader()))
                .isEmpty();
    }

    @Test
    void eachDialectQuotesInItsOwnWay() {
        SqlIdentifier table = new SqlIdentifier("s", "a\"b`c");
        assertThat(JdbcDialects.forUrl("jdbc:postgresql://h/db").qualified(table))
                .isEqualTo("\"s\".\"a\"\"b`c\"");
        assertThat(JdbcDialects.forUrl("jdbc:mariadb://h/db").qualified(table)).isEqualTo("`s`.`a\"b``c`");
        assertThat(JdbcDialects.forUrl("jdbc:mariadb://h/db")
                        .writes()
                        .insertSql(new SqlIdentifier(null, "t"), List.of("k", "v"), 2))
                .isEqualTo("INSERT INTO `t` (`k`, `v`) VALUES (?, ?), (?, ?)");
    }

    @Test
    void aMySqlUrlTakesMySqlConnectorJWhenItIsThereAndMariaDbConnectorJOtherwise() {
        XaTraits xa = JdbcDialects.forUrl("jdbc:mysql://h/db").xa();
        ClassLoader withBoth = getClass().getClassLoader();
        assertThat(xa.driver("jdbc:mysql://h/db", withBoth).orElseThrow().displayName())
                .isEqualTo("MySQL Connector/J");
        assertThat(xa.driver("jdbc:mariadb://h/db", withBoth).orElseThrow().displayName())
                .isEqualTo("MariaDB Connector/J");
        ClassLoader withoutMySql = new ClassLoader(withBoth) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.startsWith("com.mysql.")) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        assertThat(xa.driver("jdbc:mysql://h/db", withoutMySql).orElseThrow().displayName())
                .isEqualTo("MariaDB Connector/J");
    }
}
