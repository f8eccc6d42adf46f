/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The tables, rows and transactions the Debezium test writes, and what each column must read back as.
 *
 * <p>{@code items} has a column of every type the module reads and a composite key (region, id), with PostgreSQL's
 * default replica identity; {@code orders} has {@code REPLICA IDENTITY FULL}, so its updates and deletes carry the
 * whole row before; {@code notes} has a text long enough for PostgreSQL to keep it out of line (TOAST), which an
 * update of another column leaves out of the change it logs.
 */
final class CdcWorkload {

    /** The items' columns: name, SQL type, the placeholder of its value, the Debezium type, the PostgreSQL type. */
    static final List<String[]> ITEM_COLUMNS = List.of(
            new String[] {"region", "text NOT NULL", "?", "STRING", "text NOT NULL"},
            new String[] {"id", "integer NOT NULL", "?", "INT32", "integer NOT NULL"},
            new String[] {"price", "numeric(12,3)", "?", "DECIMAL", "numeric(12,3)"},
            new String[] {"amount", "numeric", "?", "VARIABLE_SCALE_DECIMAL", "numeric"},
            new String[] {"ts3", "timestamp(3)", "?", "TIMESTAMP_MILLIS", "timestamp(3)"},
            new String[] {"ts6", "timestamp(6)", "?", "TIMESTAMP_MICROS", "timestamp(6)"},
            new String[] {"tstz", "timestamptz", "?", "ZONED_TIMESTAMP", "timestamptz"},
            new String[] {"day", "date", "?", "DATE", "date"},
            new String[] {"t6", "time", "?", "TIME_MICROS", "time(6)"},
            new String[] {"t3", "time(3)", "?", "TIME_MILLIS", "time(3)"},
            new String[] {"doc", "json", "?::json", "JSON", "jsonb"},
            new String[] {"docb", "jsonb", "?::jsonb", "JSON", "jsonb"},
            new String[] {"uid", "uuid", "?", "UUID", "uuid"},
            new String[] {"raw", "bytea", "?", "BYTES", "bytea"},
            new String[] {"note", "text", "?", "STRING", "text"},
            new String[] {"code", "varchar(12)", "?", "STRING", "varchar(12)"},
            new String[] {"mood", "mood", "?::mood", "ENUM", "text"},
            new String[] {"flag", "boolean", "?", "BOOLEAN", "boolean"},
            new String[] {"small", "smallint", "?", "INT16", "smallint"},
            new String[] {"big", "bigint", "?", "INT64", "bigint"},
            new String[] {"r", "real", "?", "FLOAT32", "real"},
            new String[] {"dp", "double precision", "?", "FLOAT64", "double precision"});

    static final List<String> ORDER_COLUMNS = List.of("id", "item_id", "qty");

    private CdcWorkload() {}

    static void createTables(Connection c) throws SQLException {
        StringBuilder items = new StringBuilder("CREATE TABLE items (");
        for (String[] column : ITEM_COLUMNS) {
            items.append(column[0]).append(' ').append(column[1]).append(", ");
        }
        items.append("PRIMARY KEY (region, id))");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
            s.execute(items.toString());
            s.execute("CREATE TABLE orders (id bigint PRIMARY KEY, item_id integer, qty integer NOT NULL)");
            s.execute("ALTER TABLE orders REPLICA IDENTITY FULL");
            s.execute("CREATE TABLE notes (id integer PRIMARY KEY, body text, tag text)");
        }
    }

    /** The first item: ordinary values, a numeric with more digits than a double holds, unicode text. */
    static Map<String, Object> item1() {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("region", "eu");
        row.put("id", 1);
        row.put("price", new BigDecimal("1234.500"));
        row.put("amount", new BigDecimal("3.14159265358979323846"));
        row.put("ts3", LocalDateTime.of(2026, 3, 4, 5, 6, 7, 123_000_000));
        row.put("ts6", LocalDateTime.of(2026, 3, 4, 5, 6, 7, 123_456_000));
        row.put("tstz", OffsetDateTime.of(2026, 3, 4, 5, 6, 7, 123_456_000, ZoneOffset.ofHours(2)));
        row.put("day", LocalDate.of(2026, 3, 4));
        row.put("t6", LocalTime.of(13, 14, 15, 654_321_000));
        row.put("t3", LocalTime.of(13, 14, 15, 654_000_000));
        row.put("doc", "{\"a\":1,  \"b\":\"x\"}");
        row.put("docb", "{\"a\": 1, \"b\": [true, null]}");
        row.put("uid", UUID.fromString("0b4f7c9e-2f7a-4d6e-9c1a-3e5d7f9b1a2c"));
        row.put("raw", new byte[] {0, 1, 2, (byte) 0xff});
        row.put("note", "na\u00efve \u2603 text");
        row.put("code", "ABC-12");
        row.put("mood", "happy");
        row.put("flag", true);
        row.put("small", (short) -7);
        row.put("big", 9_000_000_000_000L);
        row.put("r", 1.5f);
        row.put("dp", 2.718281828459045);
        return row;
    }

    /** The second item: edges: before 1970, negative and scale-0 decimals, the least values, empty texts. */
    static Map<String, Object> item2() {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("region", "eu");
        row.put("id", 2);
        row.put("price", new BigDecimal("-0.001"));
        row.put("amount", new BigDecimal("100"));
        row.put("ts3", LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000));
        row.put("ts6", LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1_000));
        row.put("tstz", OffsetDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000, ZoneOffset.ofHoursMinutes(-5, -30)));
        row.put("day", LocalDate.of(1969, 12, 31));
        row.put("t6", LocalTime.of(0, 0, 0, 1_000));
        row.put("t3", LocalTime.of(23, 59, 59, 999_000_000));
        row.put("doc", "[]");
        row.put("docb", "{}");
        row.put("uid", UUID.fromString("ffffffff-ffff-4fff-bfff-ffffffffffff"));
        row.put("raw", new byte[0]);
        row.put("note", "");
        row.put("code", "x");
        row.put("mood", "sad");
        row.put("flag", false);
        row.put("small", Short.MIN_VALUE);
        row.put("big", Long.MIN_VALUE);
        row.put("r", -0.25f);
        row.put("dp", 1e-300);
        return row;
    }

    /** The third item: every column that may be NULL is. */
    static Map<String, Object> item3() {
        Map<String, Object> row = new LinkedHashMap<>();
        for (String[] column : ITEM_COLUMNS) {
            row.put(column[0], null);
        }
        row.put("region", "us");
        row.put("id", 3);
        return row;
    }

    static Map<String, Object> order(long id, Integer itemId, int qty) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("item_id", itemId);
        row.put("qty", qty);
        return row;
    }

    /** 20,000 hex digits of seeded random bytes: compressed, still far over PostgreSQL's 2 kB TOAST threshold. */
    static String longText() {
        java.util.Random random = new java.util.Random(42);
        StringBuilder text = new StringBuilder();
        while (text.length() < 20_000) {
            text.append(Integer.toHexString(random.nextInt(16)));
        }
        return text.toString();
    }

    static Map<String, Object> note(int id, String body, String tag) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("body", body);
        row.put("tag", tag);
        return row;
    }

    static void insertItem(Connection c, Map<String, Object> row) throws SQLException {
        List<String> names = new ArrayList<>();
        List<String> placeholders = new ArrayList<>();
        for (String[] column : ITEM_COLUMNS) {
            names.add(column[0]);
            placeholders.add(column[2]);
        }
        String sql =
                "INSERT INTO items (" + String.join(", ", names) + ") VALUES (" + String.join(", ", placeholders) + ")";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (String[] column : ITEM_COLUMNS) {
                ps.setObject(i++, row.get(column[0]));
            }
            ps.executeUpdate();
        }
    }

    static void insertOrder(Connection c, Map<String, Object> row) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, item_id, qty) VALUES (?, ?, ?)")) {
            ps.setObject(1, row.get("id"));
            ps.setObject(2, row.get("item_id"));
            ps.setObject(3, row.get("qty"));
            ps.executeUpdate();
        }
    }

    static void execute(Connection c, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            ps.executeUpdate();
        }
    }
}
