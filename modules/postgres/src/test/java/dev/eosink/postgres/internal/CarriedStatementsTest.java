/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.CarriedStatementsRefused;
import dev.eosink.jdbc.sql.SqlIdentifier;
import dev.eosink.postgres.carried.CarriedStatements;
import dev.eosink.postgres.copy.BinaryCopyEncoder;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The form in which held upserts and deletes travel in checkpoint state. */
class CarriedStatementsTest {

    @Test
    void roundTripsUpsertsDeletesNullsAndAnyText() throws IOException {
        List<CarriedStatements.Statement> statements = List.of(
                new CarriedStatements.Statement(
                        false, new String[] {"1", "a"}, new String[] {"1", "a", null, "é ' \" \\ {}"}),
                new CarriedStatements.Statement(true, new String[] {"2", "b"}, null),
                new CarriedStatements.Statement(false, new String[] {"3", ""}, new String[] {"3", "", "", "x"}));
        CarriedStatements written =
                new CarriedStatements(List.of("k1", "k2", "v", "note"), List.of("k1", "k2"), statements);

        CarriedStatements read = CarriedStatements.decode(written.encode());

        assertThat(read.columns()).containsExactly("k1", "k2", "v", "note");
        assertThat(read.keyColumnCount()).isEqualTo(2);
        assertThat(read.keyColumns()).as("version 2 names the key columns").contains(List.of("k1", "k2"));
        assertThat(read.statements()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            CarriedStatements.Statement a = read.statements().get(i);
            CarriedStatements.Statement b = statements.get(i);
            assertThat(a.delete()).isEqualTo(b.delete());
            assertThat(a.key()).containsExactly(b.key());
            assertThat(a.values() == null ? null : Arrays.asList(a.values()))
                    .isEqualTo(b.values() == null ? null : Arrays.asList(b.values()));
        }
    }

    @Test
    void corruptOrNewerBytesAreRefused() {
        byte[] bytes = new CarriedStatements(
                        List.of("k"),
                        List.of("k"),
                        List.of(new CarriedStatements.Statement(true, new String[] {"1"}, null)))
                .encode();
        assertThatThrownBy(() -> CarriedStatements.decode(Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt");
        byte[] newer = bytes.clone();
        newer[0] = 3;
        assertThatThrownBy(() -> CarriedStatements.decode(newer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("newer release");
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> CarriedStatements.decode(longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("trailing");
    }

    /**
     * State of the first layout (version 1: the number of key columns, not their names) still reads, with the key
     * columns unnamed; a restore checks their number.
     */
    @Test
    void theFirstLayoutStillReads() throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeInt(2);
            for (String column : List.of("k", "v")) {
                out.writeInt(column.length());
                out.write(column.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            out.writeInt(1); // key columns
            out.writeInt(1); // statements
            out.writeBoolean(true);
            out.writeInt(1);
            out.write('7');
        }
        CarriedStatements read = CarriedStatements.decode(bytes.toByteArray());
        assertThat(read.columns()).containsExactly("k", "v");
        assertThat(read.keyColumnCount()).isEqualTo(1);
        assertThat(read.keyColumns()).isEmpty();
        assertThat(read.statements())
                .singleElement()
                .satisfies(s -> assertThat(s.key()).containsExactly("7"));
    }

    /**
     * Statements carried by another key (the job's upsert key changed between the checkpoint and the restore) are
     * refused, naming both keys.
     */
    @Test
    void statementsCarriedByAnotherKeyAreRefused() {
        UpsertBuffer<Object[]> buffer = new UpsertBuffer<>(
                new SqlIdentifier(null, "t"),
                List.of("k", "v"),
                List.of("bigint", "bigint"),
                List.of("k"),
                MappedRows.encoder(
                        BinaryCopyEncoder.forTypes(List.of("k", "v"), List.of("int8", "int8")),
                        List.of("int8", "int8")));
        byte[] otherKey = new CarriedStatements(
                        List.of("k", "v"),
                        List.of("v"),
                        List.of(new CarriedStatements.Statement(true, new String[] {"1"}, null)))
                .encode();

        assertThatThrownBy(() -> buffer.readCarried(otherKey))
                .isInstanceOf(CarriedStatementsRefused.class)
                .hasMessageContaining("the key [v]")
                .hasMessageContaining("the key [k]");
    }

    /**
     * Statements carried for other columns (the job's table or column list changed between the
     * checkpoint and the restore) are refused, naming both, rather than written into the wrong columns.
     */
    @Test
    void statementsCarriedForOtherColumnsAreRefused() {
        UpsertBuffer<Object[]> buffer = new UpsertBuffer<>(
                new SqlIdentifier(null, "t"),
                List.of("k", "v"),
                List.of("bigint", "bigint"),
                List.of("k"),
                MappedRows.encoder(
                        BinaryCopyEncoder.forTypes(List.of("k", "v"), List.of("int8", "int8")),
                        List.of("int8", "int8")));
        byte[] otherColumns = new CarriedStatements(
                        List.of("k", "v", "note"),
                        List.of("k"),
                        List.of(new CarriedStatements.Statement(true, new String[] {"1"}, null)))
                .encode();

        assertThatThrownBy(() -> buffer.readCarried(otherColumns))
                .isInstanceOf(CarriedStatementsRefused.class)
                .hasMessageContaining("[k, v, note]")
                .hasMessageContaining("this sink writes [k, v]");
    }
}
