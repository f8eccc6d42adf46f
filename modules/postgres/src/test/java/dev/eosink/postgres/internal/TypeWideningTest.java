/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An evolving sink creates a column with the shape's type as given, then (after any restart, or at the next shape of
 * the table that differs) compares the column, as {@code format_type} spells it, with the same shape's type. Every
 * type PostgreSQL accepts in CREATE TABLE must hold itself: else the sink refuses the very table it created.
 */
class TypeWideningTest {

    @Test
    void aColumnTheSinkCreatedFromAShapeTypeHoldsThatSameType() {
        // shape type -> format_type of the column CREATE TABLE made of it (PostgreSQL 15, checked with psql)
        Map<String, String> created = new LinkedHashMap<>();
        created.put("char", "character(1)");
        created.put("character", "character(1)");
        created.put("bit", "bit(1)");
        created.put("float", "double precision");
        created.put("float(10)", "real");
        created.put("serial", "integer");
        created.put("int[]", "integer[]");
        created.put("int8[]", "bigint[]");
        created.put("varchar(10)[]", "character varying(10)[]");
        created.put("timestamptz[]", "timestamp with time zone[]");
        Map<String, String> refused = new LinkedHashMap<>();
        created.forEach((shape, column) -> {
            if (!TypeWidening.holds(column, shape)) {
                refused.put(shape, column);
            }
        });
        assertThat(refused)
                .as("shape types whose own created column the sink then refuses (shape type -> column type)")
                .isEmpty();
    }

    @Test
    void narrowerOrOtherKindsAreRefusedWiderOnesHeld() {
        java.util.List<Map.Entry<String, String>> refused = new java.util.ArrayList<>();
        refused.add(Map.entry("integer", "bigint"));
        refused.add(Map.entry("character varying(10)", "text"));
        refused.add(Map.entry("character varying(10)", "varchar(20)"));
        refused.add(Map.entry("numeric(8,2)", "numeric(10,2)"));
        refused.add(Map.entry("integer[]", "bigint[]"));
        refused.add(Map.entry("integer", "integer[]"));
        refused.add(Map.entry("timestamp(3) without time zone", "timestamp(6)"));
        refused.add(Map.entry("timestamp without time zone", "timestamptz"));
        refused.add(Map.entry("text", "uuid"));
        refused.forEach(e -> assertThat(TypeWidening.holds(e.getKey(), e.getValue()))
                .as(e.getKey() + " holds " + e.getValue())
                .isFalse());
        Map<String, String> held = new LinkedHashMap<>();
        held.put("bigint", "integer");
        held.put("numeric(12,2)", "integer");
        held.put("numeric", "numeric(30,4)");
        held.put("text", "varchar(20)");
        held.put("double precision", "real");
        held.put("timestamp(6) with time zone", "timestamptz(3)");
        held.put("jsonb", "json");
        held.put("bigint[]", "integer[]");
        held.forEach((column, values) -> assertThat(TypeWidening.holds(column, values))
                .as(column + " holds " + values)
                .isTrue());
    }
}
