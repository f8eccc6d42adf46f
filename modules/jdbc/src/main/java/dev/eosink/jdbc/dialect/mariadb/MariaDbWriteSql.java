/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.mariadb;

import dev.eosink.jdbc.dialect.Sql;
import dev.eosink.jdbc.dialect.WriteSql;
import dev.eosink.jdbc.sql.SqlIdentifier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** MariaDB's and MySQL's write SQL. */
final class MariaDbWriteSql implements WriteSql {

    private final MariaDbDialect dialect;

    MariaDbWriteSql(MariaDbDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public String quote(String identifier) {
        return dialect.quote(identifier);
    }

    /**
     * {@code INSERT ... VALUES (...), (...) ON DUPLICATE KEY UPDATE c = VALUES(c)}: InnoDB takes the rows in order,
     * locks each key's row (or its gap) and updates it in place. {@code VALUES(c)} rather than MariaDB 10.3.3+'s
     * {@code VALUE(c)} or MySQL 8's row alias, so that one statement runs on MariaDB 10.x/11.x and MySQL 5.7/8 alike.
     * The key columns are updated too: a {@code _ci} or PAD SPACE collation takes 'alice' and 'ALICE ' as one key,
     * and the row must end as the last record spelled it (an unchanged value changes nothing).
     */
    @Override
    public Optional<String> upsertSql(SqlIdentifier table, List<String> columns, List<String> key, int rows) {
        String updates = columns.stream()
                .map(c -> quote(c) + " = VALUES(" + quote(c) + ")")
                .collect(Collectors.joining(", "));
        return Optional.of(insertSql(table, columns, rows) + " ON DUPLICATE KEY UPDATE " + updates);
    }

    /** {@code ALTER TABLE t ADD UNIQUE KEY (k, ...)}. */
    @Override
    public String addUniqueKeySql(SqlIdentifier table, List<String> key) {
        return "ALTER TABLE " + qualified(table) + " ADD UNIQUE KEY ("
                + key.stream().map(this::quote).collect(Collectors.joining(", ")) + ")";
    }

    @Override
    public String upsertOnOtherUniqueKeys() {
        return "A record that matches another key's row updates that row (ON DUPLICATE KEY UPDATE fires on any unique "
                + "key).";
    }

    /** The session's {@code max_allowed_packet}: the global value when the session began. */
    @Override
    public long maxStatementBytes(Connection c) throws SQLException {
        return ((Number) Sql.single(c, "SELECT @@max_allowed_packet")).longValue();
    }

    @Override
    public List<List<String>> uniqueKeys(Connection c, SqlIdentifier table) throws SQLException {
        String sql = "SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                + (table.schema() == null ? "DATABASE()" : "?") + " AND TABLE_NAME = ? AND NON_UNIQUE = 0"
                + " ORDER BY INDEX_NAME, SEQ_IN_INDEX";
        Map<String, List<String>> keys = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            if (table.schema() != null) {
                s.setString(i++, table.schema());
            }
            s.setString(i, table.name());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    keys.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(rs.getString(2));
                }
            }
        }
        return new ArrayList<>(keys.values());
    }

    /**
     * The record and the error in utf8mb4 whatever the database's default (latin1 on MariaDB before 11.6 and MySQL
     * 5.7): a refused record may be in any script, and a dead letter that the table cannot hold would fail its epoch
     * after every restart. The other columns are ASCII.
     */
    @Override
    public Optional<String> deadLetterDdl(SqlIdentifier table) {
        return Optional.of("CREATE TABLE IF NOT EXISTS " + qualified(table)
                + " (gid VARCHAR(200) NOT NULL, sink_id VARCHAR(100) NOT NULL, subtask INT NOT NULL,"
                + " checkpoint_id BIGINT NOT NULL, position BIGINT NOT NULL, record TEXT CHARACTER SET utf8mb4 NOT NULL,"
                + " `sqlstate` VARCHAR(5), error TEXT CHARACTER SET utf8mb4 NOT NULL,"
                + " created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                + " KEY " + quote(table.name() + "_gid") + " (gid)) ENGINE=InnoDB");
    }
}
