package dev.eosink.postgres.internal;

/**
 * A target column's type as the preflight found it in the catalog.
 *
 * @param typeName {@code pg_type.typname} (int8, varchar, bpchar, ...): what picks its COPY encoder
 * @param cast the type to cast a parameter to ({@code format_type} without a modifier; {@code
 *     bpchar} for char(n), whose modifier-less spelling "character" would mean char(1) and truncate)
 * @param declaredLength the n of a varchar(n) or char(n) column, which the COPY encoder checks by the
 *     server's own rule; -1 for other types, without a declared length, or on a SQL_ASCII server
 *     (which counts bytes, not characters: the server checks those alone)
 */
record ColumnType(String typeName, String cast, int declaredLength) {}
