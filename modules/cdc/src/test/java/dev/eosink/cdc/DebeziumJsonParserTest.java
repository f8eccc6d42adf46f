/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The parser on events shaped as Debezium's documentation shows them, for what a PostgreSQL run with the default
 * settings does not produce (Kafka Connect's temporal types, {@code decimal.format=NUMERIC}, nanosecond types,
 * refused types, malformed events) and for its messages. The events of a real connector are in
 * {@link DebeziumEventsITCase}.
 */
class DebeziumJsonParserTest {

    private final DebeziumJsonParser parser = new DebeziumJsonParser();

    private static final String SOURCE = """
            {"version": "3.6.1.Final", "connector": "postgresql", "name": "shop", "ts_ms": 1767225600000,
             "snapshot": "false", "db": "shop", "sequence": "[null,\\"24023128\\"]", "schema": "public",
             "table": "t", "txId": 555, "lsn": 24023128, "xmin": null}""";

    /** A value with one column {@code x} of the given schema and JSON value. */
    private static byte[] valueWith(String columnSchema, String columnValue) {
        return bytes("{\"schema\": {\"type\": \"struct\", \"name\": \"shop.public.t.Envelope\", \"fields\": ["
                + rowSchema("before", columnSchema) + ", " + rowSchema("after", columnSchema) + "]},"
                + " \"payload\": {\"before\": null, \"after\": {\"x\": " + columnValue + "}, \"source\": " + SOURCE
                + ", \"op\": \"c\", \"ts_ms\": 1767225600123, \"transaction\": null}}");
    }

    private static String rowSchema(String field, String columnSchema) {
        return "{\"field\": \"" + field
                + "\", \"type\": \"struct\", \"optional\": true, \"name\": \"shop.public.t.Value\"," + " \"fields\": ["
                + columnSchema + "]}";
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private Object valueOf(String columnSchema, String columnValue) {
        ChangeEvent event = (ChangeEvent)
                parser.parse(null, valueWith(columnSchema, columnValue)).orElseThrow();
        return event.after().orElseThrow().value("x");
    }

    @Test
    void aTombstoneIsNothing() {
        assertThat(parser.parse(bytes("{\"id\": 1}"), null)).isEmpty();
    }

    @Test
    void connectTemporalTypesAndExactNumbers() {
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"int32\", \"name\": \"org.apache.kafka.connect.data.Date\"}",
                        "-1"))
                .isEqualTo(LocalDate.of(1969, 12, 31));
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"int32\", \"name\": \"org.apache.kafka.connect.data.Time\"}",
                        "3723004"))
                .isEqualTo(LocalTime.of(1, 2, 3, 4_000_000));
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"int64\", \"name\": \"org.apache.kafka.connect.data.Timestamp\"}",
                        "-1"))
                .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000));
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"int64\", \"name\": \"io.debezium.time.NanoTimestamp\"}",
                        "1767225600123456789"))
                .isEqualTo(LocalDateTime.of(2026, 1, 1, 0, 0, 0, 123_456_789));
        assertThat(valueOf("{\"field\": \"x\", \"type\": \"int64\", \"name\": \"io.debezium.time.NanoTime\"}", "1"))
                .isEqualTo(LocalTime.of(0, 0, 0, 1));
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"string\", \"name\": \"io.debezium.time.ZonedTime\"}",
                        "\"10:15:30.5+01:00\""))
                .isEqualTo(OffsetTime.of(10, 15, 30, 500_000_000, ZoneOffset.ofHours(1)));
        // decimal.format=NUMERIC writes the number itself; the scale still comes from the schema.
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"bytes\", \"name\": \"org.apache.kafka.connect.data.Decimal\","
                                + " \"parameters\": {\"scale\": \"2\"}}",
                        "12.5"))
                .isEqualTo(new BigDecimal("12.50"));
        // Base64 of 0xfb2e = -1234 unscaled.
        assertThat(valueOf(
                        "{\"field\": \"x\", \"type\": \"bytes\", \"name\": \"org.apache.kafka.connect.data.Decimal\","
                                + " \"parameters\": {\"scale\": \"3\", \"connect.decimal.precision\": \"6\"}}",
                        "\"+y4=\""))
                .isEqualTo(new BigDecimal("-1.234"));
        assertThat(valueOf("{\"field\": \"x\", \"type\": \"double\"}", "\"NaN\""))
                .isEqualTo(Double.NaN);
        assertThat(valueOf("{\"field\": \"x\", \"type\": \"int8\"}", "-128")).isEqualTo((byte) -128);
    }

    @Test
    void aTypeItDoesNotReadIsRefusedByNameWithTheRemedy() {
        assertThatThrownBy(() -> parser.parse(
                        null,
                        valueWith(
                                "{\"field\": \"x\", \"type\": \"int64\", \"name\": \"io.debezium.time.MicroDuration\"}",
                                "1")))
                .isInstanceOf(ChangeEventFormatException.class)
                .hasMessageContaining("io.debezium.time.MicroDuration")
                .hasMessageContaining("column.exclude.list")
                .extracting(e -> ((ChangeEventFormatException) e).fieldPath())
                .isEqualTo("value.schema.fields[after].fields[x].name");
        assertThatThrownBy(() -> parser.parse(
                        null,
                        valueWith("{\"field\": \"x\", \"type\": \"array\", \"items\": {\"type\": \"int32\"}}", "[1]")))
                .hasMessageContaining("array")
                .hasMessageContaining("converters");
        assertThatThrownBy(() -> parser.parse(
                        null,
                        valueWith(
                                "{\"field\": \"x\", \"type\": \"string\", \"name\": \"io.debezium.time.IsoTimestamp\"}",
                                "\"2026-01-01T00:00:00\"")))
                .hasMessageContaining("time.precision.mode=adaptive");
    }

    @Test
    void aBadValueIsNamedByItsPathAndNeverQuotedWhole() {
        String huge = "\"" + "9".repeat(100_000) + "\"";
        assertThatThrownBy(() -> valueOf("{\"field\": \"x\", \"type\": \"int16\"}", huge))
                .isInstanceOf(ChangeEventFormatException.class)
                .hasMessageStartingWith("value.payload.after.x: ")
                .hasMessageContaining("100002 chars")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
        assertThatThrownBy(() -> valueOf("{\"field\": \"x\", \"type\": \"int16\"}", "70000"))
                .hasMessage("value.payload.after.x: 70000 is out of range [-32768, 32767]");
        assertThatThrownBy(() -> valueOf("{\"field\": \"x\", \"type\": \"int32\", \"optional\": false}", "null"))
                .hasMessage("value.payload.after.x: null, which its schema does not allow");
        assertThatThrownBy(() ->
                        parser.parse(null, bytes("{\"op\": \"c\", \"after\": {}, \"source\": {\"connector\": \"x\"}}")))
                .hasMessage("value.source.table: missing (or null)");
        assertThatThrownBy(() -> parser.parse(null, bytes("{\"op\": \"m\", \"source\": {}}")))
                .hasMessageStartingWith("value.op: 'm' is no row change");
        assertThatThrownBy(() -> parser.parse(
                        null, bytes("{\"op\": \"c\", \"before\": {\"a\": 1}, \"source\": " + SOURCE + "}")))
                .isInstanceOf(ChangeEventFormatException.class)
                .hasMessageContaining("INSERT needs a row after");
        assertThatThrownBy(() -> parser.parse(null, bytes("{not json")))
                .isInstanceOf(ChangeEventFormatException.class)
                .hasMessageStartingWith("value: not JSON");
        assertThatThrownBy(() -> parser.parse(null, bytes("{\"id\": 3}")))
                .hasMessageContaining("neither a change event")
                .hasMessageContaining("id");
    }

    @Test
    void transactionEventsWithoutSchema() {
        TransactionBoundary begin = (TransactionBoundary) parser.parse(
                        bytes("{\"id\": \"571:53195829\"}"),
                        bytes("{\"status\": \"BEGIN\", \"id\": \"571:53195829\", \"ts_ms\": 1486500577125,"
                                + " \"event_count\": null, \"data_collections\": null}"))
                .orElseThrow();
        assertThat(begin.status()).isEqualTo(TransactionBoundary.Status.BEGIN);
        assertThat(begin.totals()).isEmpty();
        assertThat(begin.time()).isEqualTo(Instant.ofEpochMilli(1486500577125L));
        TransactionBoundary end = (TransactionBoundary) parser.parse(
                        null,
                        bytes("{\"status\": \"END\", \"id\": \"571:53195829\", \"ts_ms\": 1486500577691,"
                                + " \"event_count\": 2, \"data_collections\": [{\"data_collection\": \"s1.a\","
                                + " \"event_count\": 1}, {\"data_collection\": \"s2.a\", \"event_count\": 1}]}"))
                .orElseThrow();
        assertThat(end.totals().orElseThrow().eventCount()).isEqualTo(2);
        // PostgreSQL's ids carry the LSN of the event that carries them; the transaction is the txId before it.
        assertThat(end.transactionKey()).isEqualTo("571");
        assertThat(new SourceTransaction("3E11FA47-71CA-11E1-9E33-C80AA9429562:23", 1, 1).transactionKey())
                .isEqualTo("3E11FA47-71CA-11E1-9E33-C80AA9429562:23");
        assertThat(end.totals().orElseThrow().perDataCollection())
                .containsExactly(Map.entry("s1.a", 1L), Map.entry("s2.a", 1L));
    }

    @Test
    void eventsSurviveJavaSerialization() throws Exception {
        CdcEvent event = parser.parse(
                        bytes(
                                "{\"schema\": {\"type\": \"struct\", \"fields\": [{\"field\": \"x\", \"type\": \"bytes\"}]},"
                                        + " \"payload\": {\"x\": \"AAE=\"}}"),
                        valueWith(
                                "{\"field\": \"x\", \"type\": \"string\", \"name\": \"io.debezium.data.Uuid\"}",
                                "\"0b4f7c9e-2f7a-4d6e-9c1a-3e5d7f9b1a2c\""))
                .orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream objects = new ObjectOutputStream(out)) {
            objects.writeObject(event);
            objects.writeObject(parser);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(event);
            DebeziumJsonParser copy = (DebeziumJsonParser) in.readObject();
            assertThat(copy.parse(null, valueWith("{\"field\": \"x\", \"type\": \"int32\"}", "7")))
                    .isPresent();
        }
        assertThat(((ChangeEvent) event).key().orElseThrow().value("x")).isEqualTo(new byte[] {0, 1});
    }

    @Test
    void schemalessValuesNeedTheirTargetType() {
        SchemalessValues values = SchemalessValues.microseconds();
        JsonScalar micros = new JsonScalar(JsonScalar.Kind.NUMBER, "-1");
        assertThat(values.convert(micros, "timestamp(6) without time zone"))
                .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000));
        assertThat(values.convert(new JsonScalar(JsonScalar.Kind.STRING, "1.50"), "numeric(10,2)"))
                .isEqualTo(new BigDecimal("1.50"));
        assertThat(values.convert(
                        new JsonScalar(JsonScalar.Kind.STRUCTURE, "{\"scale\":2,\"value\":\"AJY=\"}"), "numeric"))
                .isEqualTo(new BigDecimal("1.50"));
        assertThat(values.convert(new JsonScalar(JsonScalar.Kind.NUMBER, "7"), "int4"))
                .isEqualTo(7);
        assertThat(values.convert(null, "text")).isNull();
        assertThatThrownBy(() -> values.convert(new JsonScalar(JsonScalar.Kind.STRING, "AJY="), "numeric"))
                .hasMessageContaining("decimal.handling.mode=string");
        assertThatThrownBy(() -> values.convert(new JsonScalar(JsonScalar.Kind.NUMBER, "70000"), "smallint"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> values.convert(new JsonScalar(JsonScalar.Kind.STRING, "x"), "interval"))
                .hasMessageContaining("schemas.enable=true");
    }
}
