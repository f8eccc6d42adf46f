/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import dev.eosink.testing.PostgresFixture;
import dev.eosink.testing.StandalonePostgres;
import dev.eosink.testing.cdc.DebeziumCapture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import static dev.eosink.cdc.CdcWorkload.ITEM_COLUMNS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debezium's PostgreSQL connector (pgoutput, transaction metadata on) run by its embedded engine on a real PostgreSQL
 * with {@code wal_level=logical}, twice side by side: its JSON converter with the embedded schema and without. The
 * test writes a snapshot row, then several multi-table transactions (inserts, updates, an update of the key, deletes,
 * a truncate), parses every record each engine emitted, and checks each value against what was written, exactly:
 * the kinds, the keys, the column types, and that the transaction metadata adds up.
 */
class DebeziumEventsITCase {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static StandalonePostgres postgres;
    /** Every record of each engine, parsed, in the order the engine emitted them. */
    private static List<Parsed> typed;

    private static List<Parsed> schemaless;

    /** A record and what the parser made of it (empty for a tombstone). */
    static final class Parsed {
        final DebeziumCapture.Captured record;
        final Optional<CdcEvent> event;

        Parsed(DebeziumCapture.Captured record, Optional<CdcEvent> event) {
            this.record = record;
            this.event = event;
        }
    }

    @BeforeAll
    static void captureTheEvents() throws Exception {
        postgres = PostgresFixture.startNew(Map.of("wal_level", "logical"));
        try (Connection c = postgres.connect()) {
            CdcWorkload.createTables(c);
            CdcWorkload.insertItem(c, CdcWorkload.item1());
            CdcWorkload.insertOrder(c, CdcWorkload.order(1, 1, 3));
        }
        try (DebeziumCapture withSchema = new DebeziumCapture("typed", engineProperties("typed", true));
                DebeziumCapture without = new DebeziumCapture("schemaless", engineProperties("plain", false))) {
            // The slot exists before the snapshot is read: what is written after the snapshot's rows arrived streams.
            withSchema.awaitRecords("the snapshot", r -> dataRecords(r) >= 2, WAIT);
            without.awaitRecords("the snapshot", r -> dataRecords(r) >= 2, WAIT);
            writeTheTransactions();
            typed = parseAll(withSchema.awaitRecords("the last transaction's END", DebeziumEventsITCase::ended, WAIT));
            schemaless =
                    parseAll(without.awaitRecords("the last transaction's END", DebeziumEventsITCase::ended, WAIT));
        }
    }

    @AfterAll
    static void stop() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private static Properties engineProperties(String name, boolean schemas) {
        Properties p = new Properties();
        p.setProperty("name", name);
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("database.hostname", "localhost");
        p.setProperty("database.port", String.valueOf(postgres.port()));
        p.setProperty("database.user", postgres.user());
        p.setProperty("database.dbname", "postgres");
        p.setProperty("topic.prefix", name);
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", name + "_slot");
        p.setProperty("slot.drop.on.stop", "true");
        p.setProperty("publication.name", name + "_publication");
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", "public.items,public.orders,public.notes");
        p.setProperty("snapshot.mode", "initial");
        p.setProperty("provide.transaction.metadata", "true");
        // Truncates are skipped by default; the module reads them.
        p.setProperty("skipped.operations", "none");
        p.setProperty("converter.schemas.enable", String.valueOf(schemas));
        if (schemas) {
            p.setProperty("column.propagate.source.type", ".*");
        } else {
            // Without the schema, precise decimals would lose their scale (docs/cdc.md).
            p.setProperty("decimal.handling.mode", "string");
        }
        return p;
    }

    /** The transactions of {@link #TRANSACTIONS}; the last inserts order 99, whose transaction's END ends the capture. */
    private static void writeTheTransactions() throws Exception {
        try (Connection c = postgres.connect()) {
            c.setAutoCommit(false);
            CdcWorkload.insertItem(c, CdcWorkload.item2());
            CdcWorkload.insertItem(c, CdcWorkload.item3());
            CdcWorkload.insertOrder(c, CdcWorkload.order(10, 2, 5));
            c.commit();
            CdcWorkload.execute(
                    c,
                    "UPDATE items SET price = ?, note = ? WHERE region = 'eu' AND id = 2",
                    new java.math.BigDecimal("99999.999"),
                    "changed");
            CdcWorkload.execute(c, "UPDATE orders SET qty = 6 WHERE id = 10");
            c.commit();
            CdcWorkload.execute(c, "UPDATE items SET id = 4 WHERE region = 'us' AND id = 3");
            CdcWorkload.insertOrder(c, CdcWorkload.order(11, 4, 1));
            c.commit();
            CdcWorkload.execute(c, "DELETE FROM items WHERE region = 'eu' AND id = 1");
            CdcWorkload.execute(c, "DELETE FROM orders WHERE id = 10");
            c.commit();
            CdcWorkload.execute(c, "TRUNCATE orders");
            c.commit();
            CdcWorkload.execute(c, "INSERT INTO notes VALUES (1, ?, 'a')", CdcWorkload.longText());
            c.commit();
            CdcWorkload.execute(c, "UPDATE notes SET tag = 'b' WHERE id = 1");
            c.commit();
            CdcWorkload.insertOrder(c, CdcWorkload.order(99, null, 0));
            c.commit();
        }
    }

    private static long dataRecords(List<DebeziumCapture.Captured> records) {
        return records.stream().filter(r -> !r.topic.endsWith(".transaction")).count();
    }

    /** Whether the records hold order 99's insert and, after it, its transaction's END. */
    private static boolean ended(List<DebeziumCapture.Captured> records) {
        DebeziumJsonParser parser = new DebeziumJsonParser();
        String last = null;
        for (DebeziumCapture.Captured record : records) {
            Optional<CdcEvent> event = parser.parse(record.key, record.value);
            if (event.isPresent()
                    && event.get() instanceof ChangeEvent change
                    && change.table().table().equals("orders")
                    && change.kind() == ChangeKind.INSERT
                    && change.transaction().isPresent()
                    && "99".equals(keyText(change, "id"))) {
                last = change.transaction().get().transactionKey();
            }
            if (last != null
                    && event.isPresent()
                    && event.get() instanceof TransactionBoundary boundary
                    && boundary.status() == TransactionBoundary.Status.END
                    && boundary.transactionKey().equals(last)) {
                return true;
            }
        }
        return false;
    }

    private static String keyText(ChangeEvent change, String column) {
        Object value = change.key().map(k -> k.value(column)).orElse(null);
        return value instanceof JsonScalar scalar ? scalar.text() : String.valueOf(value);
    }

    private static List<Parsed> parseAll(List<DebeziumCapture.Captured> records) {
        DebeziumJsonParser parser = new DebeziumJsonParser();
        List<Parsed> parsed = new ArrayList<>();
        for (DebeziumCapture.Captured record : records) {
            parsed.add(new Parsed(record, parser.parse(record.key, record.value)));
        }
        return parsed;
    }

    /** The change events of one engine, in order. */
    private static List<ChangeEvent> changes(List<Parsed> parsed) {
        List<ChangeEvent> changes = new ArrayList<>();
        parsed.forEach(p -> p.event.filter(e -> e instanceof ChangeEvent).ifPresent(e -> changes.add((ChangeEvent) e)));
        return changes;
    }

    /** Kind, table and key values: {@code INSERT items [eu, 2]}. */
    private static String describe(ChangeEvent change) {
        List<String> key = new ArrayList<>();
        change.key().ifPresent(k -> k.columns().forEach(c -> key.add(text(k.value(c)))));
        return change.kind() + " " + change.table().table() + " " + key;
    }

    private static String text(Object value) {
        return value instanceof JsonScalar scalar ? scalar.text() : String.valueOf(value);
    }

    private static final List<List<String>> TRANSACTIONS = List.of(
            List.of("INSERT items [eu, 2]", "INSERT items [us, 3]", "INSERT orders [10]"),
            List.of("UPDATE items [eu, 2]", "UPDATE orders [10]"),
            // An update of the key: the old key's delete and the new key's insert, in the same transaction.
            List.of("DELETE items [us, 3]", "INSERT items [us, 4]", "INSERT orders [11]"),
            List.of("DELETE items [eu, 1]", "DELETE orders [10]"),
            List.of("TRUNCATE orders []"),
            List.of("INSERT notes [1]"),
            List.of("UPDATE notes [1]"),
            List.of("INSERT orders [99]"));

    @Test
    void kindsKeysAndTransactionsFollowTheStatements() {
        for (List<Parsed> parsed : List.of(typed, schemaless)) {
            List<ChangeEvent> changes = changes(parsed);
            assertThat(changes.subList(0, 2))
                    .extracting(DebeziumEventsITCase::describe)
                    .containsExactly("SNAPSHOT_READ items [eu, 1]", "SNAPSHOT_READ orders [1]");
            // Snapshot reads belong to no source transaction.
            assertThat(changes.subList(0, 2))
                    .allSatisfy(c -> assertThat(c.transaction()).isEmpty());
            Map<String, List<String>> byTransaction = new LinkedHashMap<>();
            for (ChangeEvent change : changes.subList(2, changes.size())) {
                String id = change.transaction().orElseThrow().transactionKey();
                byTransaction.computeIfAbsent(id, k -> new ArrayList<>()).add(describe(change));
            }
            assertThat(new ArrayList<>(byTransaction.values())).isEqualTo(TRANSACTIONS);
        }
    }

    @Test
    void tombstonesFollowDeletesAndParseToNothing() {
        for (List<Parsed> parsed : List.of(typed, schemaless)) {
            int tombstones = 0;
            for (int i = 0; i < parsed.size(); i++) {
                Parsed p = parsed.get(i);
                assertThat(p.event.isEmpty()).isEqualTo(p.record.value == null);
                if (p.event.isEmpty()) {
                    tombstones++;
                    CdcEvent previous = parsed.get(i - 1).event.orElseThrow();
                    assertThat(((ChangeEvent) previous).kind()).isEqualTo(ChangeKind.DELETE);
                    assertThat(p.record.key).isEqualTo(parsed.get(i - 1).record.key);
                }
            }
            assertThat(tombstones).isEqualTo(3);
        }
    }

    @Test
    void transactionMetadataAddsUp() {
        for (List<Parsed> parsed : List.of(typed, schemaless)) {
            Map<String, List<ChangeEvent>> open = new LinkedHashMap<>();
            List<String> ended = new ArrayList<>();
            for (Parsed p : parsed) {
                if (p.event.isEmpty()) {
                    continue;
                }
                CdcEvent event = p.event.get();
                if (event instanceof TransactionBoundary boundary) {
                    assertThat(p.record.topic).endsWith(".transaction");
                    if (boundary.status() == TransactionBoundary.Status.BEGIN) {
                        assertThat(open).doesNotContainKey(boundary.transactionKey());
                        assertThat(ended).doesNotContain(boundary.transactionKey());
                        open.put(boundary.transactionKey(), new ArrayList<>());
                    } else {
                        List<ChangeEvent> events = open.remove(boundary.transactionKey());
                        assertThat(events)
                                .as("END of %s after its BEGIN", boundary.id())
                                .isNotNull();
                        TransactionBoundary.Totals totals = boundary.totals().orElseThrow();
                        assertThat(totals.eventCount()).isEqualTo(events.size());
                        Map<String, Long> perTable = new LinkedHashMap<>();
                        events.forEach(e -> perTable.merge(e.table().dataCollection(), 1L, Long::sum));
                        assertThat(totals.perDataCollection()).isEqualTo(perTable);
                        ended.add(boundary.transactionKey());
                    }
                    continue;
                }
                ChangeEvent change = (ChangeEvent) event;
                if (change.kind() == ChangeKind.SNAPSHOT_READ) {
                    continue;
                }
                SourceTransaction transaction = change.transaction().orElseThrow();
                // Debezium's PostgreSQL ids carry each event's own LSN: the transaction is its key, the txId.
                assertThat(transaction.transactionKey())
                        .isEqualTo(change.position().field("txId").orElseThrow());
                List<ChangeEvent> events = open.get(transaction.transactionKey());
                assertThat(events)
                        .as("%s inside its transaction's BEGIN and END", change)
                        .isNotNull();
                events.add(change);
                long ofTable = events.stream()
                        .filter(e -> e.table().equals(change.table()))
                        .count();
                assertThat(transaction.totalOrder()).isEqualTo(events.size());
                assertThat(transaction.dataCollectionOrder()).isEqualTo(ofTable);
            }
            assertThat(open).isEmpty();
            assertThat(ended).hasSize(TRANSACTIONS.size());
        }
    }

    /** What each row image of each event must hold, by {@link #describe}. */
    private static Map<String, Map<String, Object>> expectedAfter() {
        Map<String, Object> item2Updated = CdcWorkload.item2();
        item2Updated.put("price", new java.math.BigDecimal("99999.999"));
        item2Updated.put("note", "changed");
        Map<String, Object> item4 = CdcWorkload.item3();
        item4.put("id", 4);
        Map<String, Map<String, Object>> expected = new LinkedHashMap<>();
        expected.put("SNAPSHOT_READ items [eu, 1]", CdcWorkload.item1());
        expected.put("SNAPSHOT_READ orders [1]", CdcWorkload.order(1, 1, 3));
        expected.put("INSERT items [eu, 2]", CdcWorkload.item2());
        expected.put("INSERT items [us, 3]", CdcWorkload.item3());
        expected.put("INSERT orders [10]", CdcWorkload.order(10, 2, 5));
        expected.put("UPDATE items [eu, 2]", item2Updated);
        expected.put("UPDATE orders [10]", CdcWorkload.order(10, 2, 6));
        expected.put("INSERT items [us, 4]", item4);
        expected.put("INSERT orders [11]", CdcWorkload.order(11, 4, 1));
        expected.put("INSERT orders [99]", CdcWorkload.order(99, null, 0));
        expected.put("INSERT notes [1]", CdcWorkload.note(1, CdcWorkload.longText(), "a"));
        // The update left the out-of-line text alone, so PostgreSQL's log has none of it: Debezium writes its
        // placeholder (unavailable.value.placeholder) where the value would be. A sink must keep the column as is.
        expected.put("UPDATE notes [1]", CdcWorkload.note(1, "__debezium_unavailable_value", "b"));
        return expected;
    }

    /** The whole row before, where the replica identity gives it: the orders' (FULL). */
    private static Map<String, Map<String, Object>> expectedBefore() {
        return Map.of(
                "UPDATE orders [10]", CdcWorkload.order(10, 2, 5),
                "DELETE orders [10]", CdcWorkload.order(10, 2, 6));
    }

    /** A row's value as the Java value it stands for. */
    private interface ToJava {
        Object apply(String table, String column, Object value);
    }

    @Test
    void typedValuesAreExactlyWhatWasWritten() {
        checkValues(typed, (table, column, value) -> value);
    }

    @Test
    void schemalessValuesConvertToWhatWasWritten() {
        Map<String, String> itemTypes = new LinkedHashMap<>();
        ITEM_COLUMNS.forEach(c -> itemTypes.put(c[0], c[4].replace(" NOT NULL", "")));
        Map<String, Map<String, String>> types = Map.of(
                "items", itemTypes,
                "orders", Map.of("id", "bigint", "item_id", "integer", "qty", "integer"),
                "notes", Map.of("id", "integer", "body", "text", "tag", "text"));
        // The declared unit of a temporal number: Debezium's adaptive mode wrote the (3) columns in milliseconds,
        // the others in microseconds.
        SchemalessValues millis = new SchemalessValues(ChronoUnit.MILLIS, ChronoUnit.MILLIS);
        SchemalessValues micros = SchemalessValues.microseconds();
        checkValues(schemaless, (table, column, value) -> {
            String type = types.get(table).get(column);
            SchemalessValues units = column.equals("ts3") || column.equals("t3") ? millis : micros;
            return units.convert((JsonScalar) value, type);
        });
    }

    private static void checkValues(List<Parsed> parsed, ToJava toJava) {
        Map<String, Map<String, Object>> after = expectedAfter();
        Map<String, Map<String, Object>> before = expectedBefore();
        int checked = 0;
        for (ChangeEvent change : changes(parsed)) {
            String described = describe(change);
            String table = change.table().table();
            if (change.kind().hasRowAfter()) {
                assertRow(described + " after", table, change.after().orElseThrow(), after.get(described), toJava);
                checked++;
            } else {
                assertThat(change.after()).isEmpty();
            }
            if (before.containsKey(described)) {
                assertRow(described + " before", table, change.before().orElseThrow(), before.get(described), toJava);
                checked++;
            } else if (change.kind() == ChangeKind.DELETE) {
                // The default replica identity gives the key's columns of the row before a delete.
                Row row = change.before().orElseThrow();
                Row key = change.key().orElseThrow();
                for (String column : key.columns()) {
                    assertThat(toJava.apply(table, column, row.value(column)))
                            .isEqualTo(toJava.apply(table, column, key.value(column)));
                }
            } else {
                assertThat(change.before()).as(described).isEmpty();
            }
        }
        assertThat(checked).isEqualTo(after.size() + before.size());
    }

    private static void assertRow(String what, String table, Row row, Map<String, Object> expected, ToJava toJava) {
        assertThat(expected).as(what).isNotNull();
        assertThat(row.columns()).as(what).containsExactlyElementsOf(expected.keySet());
        for (Map.Entry<String, Object> column : expected.entrySet()) {
            Object actual = toJava.apply(table, column.getKey(), row.value(column.getKey()));
            Object wanted = column.getValue() instanceof OffsetDateTime t
                    ? t.withOffsetSameInstant(ZoneOffset.UTC)
                    : column.getValue();
            // Exact: equals of BigDecimal includes the scale, of LocalDateTime the nanoseconds.
            assertThat(actual).as(what + " " + column.getKey()).isEqualTo(wanted);
        }
    }

    @Test
    void columnSchemasGiveJavaAndPostgresTypes() {
        ChangeEvent insert = changes(typed).stream()
                .filter(c -> describe(c).equals("INSERT items [eu, 2]"))
                .findFirst()
                .orElseThrow();
        RowSchema schema = insert.rowSchema().orElseThrow();
        assertThat(schema.columns()).hasSize(ITEM_COLUMNS.size());
        for (int i = 0; i < ITEM_COLUMNS.size(); i++) {
            String[] column = ITEM_COLUMNS.get(i);
            ColumnSchema actual = schema.columns().get(i);
            assertThat(actual.name()).isEqualTo(column[0]);
            assertThat(actual.type()).as(column[0]).isEqualTo(ColumnType.valueOf(column[3]));
            assertThat(actual.postgresColumnDefinition()).as(column[0]).isEqualTo(column[4]);
        }
        RowSchema key = insert.key().orElseThrow().schema().orElseThrow();
        assertThat(key.columns())
                .extracting(ColumnSchema::name, ColumnSchema::type, ColumnSchema::optional)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("region", ColumnType.STRING, false),
                        org.assertj.core.groups.Tuple.tuple("id", ColumnType.INT32, false));
        assertThat(changes(schemaless))
                .allSatisfy(c -> assertThat(c.rowSchema()).isEmpty());
    }

    @Test
    void originsNameTheTableAndThePosition() {
        for (List<Parsed> parsed : List.of(typed, schemaless)) {
            for (ChangeEvent change : changes(parsed)) {
                assertThat(change.table().database()).contains("postgres");
                assertThat(change.table().schema()).contains("public");
                assertThat(change.position().connector()).isEqualTo("postgresql");
                assertThat(change.position().field("lsn")).isPresent();
                assertThat(change.position().sourceTime())
                        .isBefore(Instant.now().plusSeconds(1));
                assertThat(change.position().processedTime()).isPresent();
            }
        }
    }
}
