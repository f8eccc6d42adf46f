/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.row;

import org.apache.flink.annotation.Internal;

import java.util.Objects;

/**
 * A column of the sink's table as the catalog describes it at writer start, or a column the table
 * lacks ({@link #missing}). Types are named as {@code pg_type} names them.
 */
@Internal
public final class TargetColumn {

    private final String name;
    private final boolean exists;
    private final String typeName;
    private final char category;
    private final String declared;
    private final String cast;
    private final int typmod;
    private final int declaredLength;
    private final String elementTypeName;
    private final int elementOid;
    private final char elementCategory;

    private TargetColumn(
            String name,
            boolean exists,
            String typeName,
            char category,
            String declared,
            String cast,
            int typmod,
            int declaredLength,
            String elementTypeName,
            int elementOid,
            char elementCategory) {
        this.name = Objects.requireNonNull(name, "name");
        this.exists = exists;
        this.typeName = typeName;
        this.category = category;
        this.declared = declared;
        this.cast = cast;
        this.typmod = typmod;
        this.declaredLength = declaredLength;
        this.elementTypeName = elementTypeName;
        this.elementOid = elementOid;
        this.elementCategory = elementCategory;
    }

    /**
     * A column of the table.
     *
     * @param typeName {@code pg_type.typname} (int8, varchar, bpchar for char(n), _int4 for int4[]):
     *     what picks a COPY encoder
     * @param category {@code pg_type.typcategory}: 'A' array, 'E' enum, 'S' string, 'N' numeric, ...
     * @param declared the type as the table declares it, for messages: {@code format_type} with the
     *     column's modifier ("character varying(10)", "numeric(12,2)", "integer[]")
     * @param cast the type a statement parameter is cast to: {@code format_type} without the modifier,
     *     but {@code bpchar} for char(n), whose modifier-less spelling "character" would mean char(1)
     * @param typmod the column's type modifier ({@code atttypmod}), -1 for none
     * @param declaredLength the n of a varchar(n) or char(n) column, whose length the COPY encoders
     *     check by the server's own rule; -1 for other types, without a declared length, or on a
     *     SQL_ASCII server (which counts bytes, not characters: the server checks those alone)
     * @param elementTypeName for an array column, its element type's {@code typname}; else null
     * @param elementOid for an array column, its element type's oid (binary arrays carry it); else 0
     * @param elementCategory for an array column, its element type's {@code typcategory}; else 0
     */
    public static TargetColumn of(
            String name,
            String typeName,
            char category,
            String declared,
            String cast,
            int typmod,
            int declaredLength,
            String elementTypeName,
            int elementOid,
            char elementCategory) {
        return new TargetColumn(
                name,
                true,
                Objects.requireNonNull(typeName, "typeName"),
                category,
                Objects.requireNonNull(declared, "declared"),
                Objects.requireNonNull(cast, "cast"),
                typmod,
                declaredLength,
                elementTypeName,
                elementOid,
                elementCategory);
    }

    /** A column the sink writes that the table lacks; only its name is known. */
    public static TargetColumn missing(String name) {
        return new TargetColumn(name, false, null, (char) 0, null, null, -1, -1, null, 0, (char) 0);
    }

    public String name() {
        return name;
    }

    /** False for a {@link #missing} column, which has nothing but its name. */
    public boolean exists() {
        return exists;
    }

    public String typeName() {
        return typeName;
    }

    public char category() {
        return category;
    }

    public String declared() {
        return declared;
    }

    public String cast() {
        return cast;
    }

    public int typmod() {
        return typmod;
    }

    public int declaredLength() {
        return declaredLength;
    }

    /** Whether the column is an array (of {@link #elementTypeName}). */
    public boolean isArray() {
        return elementTypeName != null;
    }

    public String elementTypeName() {
        return elementTypeName;
    }

    public int elementOid() {
        return elementOid;
    }

    public char elementCategory() {
        return elementCategory;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof TargetColumn other
                        && name.equals(other.name)
                        && exists == other.exists
                        && Objects.equals(typeName, other.typeName)
                        && category == other.category
                        && Objects.equals(declared, other.declared)
                        && Objects.equals(cast, other.cast)
                        && typmod == other.typmod
                        && declaredLength == other.declaredLength
                        && Objects.equals(elementTypeName, other.elementTypeName)
                        && elementOid == other.elementOid
                        && elementCategory == other.elementCategory;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, exists, typeName, declared, typmod);
    }

    @Override
    public String toString() {
        return exists
                ? "TargetColumn[" + name + " " + declared + " (" + typeName + ")]"
                : "TargetColumn[" + name + ", missing]";
    }
}
