/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.SqlIdentifier;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How the upsert writer tells keys apart, per key column, from the column's type and collation: the
 * writer must take two records for one key exactly when the table's unique index does.
 *
 * <p>Why it matters: within a batch the writer keeps only the last record of each key (PostgreSQL
 * refuses an {@code INSERT ... ON CONFLICT DO UPDATE} that proposes two rows for one key: "cannot
 * affect row a second time"), its Bloom filter decides which keys it never wrote (those go by COPY,
 * which must never meet a row of its own), and its window merges later records into held ones. All
 * of that compares keys in Java. For most types the value's text form is the key (numbers normalized);
 * for some, the database's equality is not Java's:
 *
 * <ul>
 *   <li>{@link Form#TRIMMED}: {@code char(n)} ({@code bpchar}) with a deterministic collation ignores
 *       trailing spaces ("a" = "a  "); the writer compares keys without them, which is exactly the
 *       database's equality, so nothing else changes (COPY included);
 *   <li>{@link Form#DATABASE}: {@code citext} (case folded by the database's locale, which Java's
 *       case mapping does not reproduce: C, Turkish and ICU locales each differ) and any column with
 *       a nondeterministic collation (case- or accent-insensitive). No Java form is exact, so the
 *       database decides: the writer merges only identical keys, every record goes as a statement
 *       (none by COPY, whose new-key decision would need the exact form), and each statement keeps
 *       the last record per key by the database's own equality ({@code DISTINCT ON} with the column's
 *       collation) before it upserts and deletes; the key column takes the last record's spelling;
 *   <li>{@link Form#TEXT}: every other type, compared by its text form, as before.
 * </ul>
 *
 * <p>Refused at start ({@link #unsupported}): citext with a nondeterministic collation, whose unique
 * index compares by that collation while citext's "=" ignores it, so no statement can merge rows as
 * the index does.
 */
final class KeyColumns {

    /** How one key column's values are compared. */
    enum Form {
        TEXT,
        TRIMMED,
        DATABASE
    }

    private final List<String> names;
    private final List<Form> forms;
    /** Per key column: " COLLATE schema.name" for a nondeterministic collation, else "". */
    private final List<String> collations;

    private final String unsupported;
    private final String why;

    private KeyColumns(List<String> names, List<Form> forms, List<String> collations, String unsupported, String why) {
        this.names = names;
        this.forms = forms;
        this.collations = collations;
        this.unsupported = unsupported;
        this.why = why;
    }

    /** Every key column compared by its text form (no catalog at hand: tests driving the writer). */
    static KeyColumns plain(List<String> keyColumns) {
        List<Form> forms = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        for (int i = 0; i < keyColumns.size(); i++) {
            forms.add(Form.TEXT);
            collations.add("");
        }
        return new KeyColumns(List.copyOf(keyColumns), forms, collations, null, null);
    }

    /** Reads the key columns' types (through domains) and collations from the catalog. */
    static KeyColumns read(Connection c, SqlIdentifier table, List<String> keyColumns) throws SQLException {
        List<Form> forms = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        List<String> unsupported = new ArrayList<>();
        List<String> why = new ArrayList<>();
        try (PreparedStatement column = c.prepareStatement(
                        "SELECT a.atttypid, format_type(a.atttypid, a.atttypmod), co.collisdeterministic, "
                                + "quote_ident(n.nspname) || '.' || quote_ident(co.collname) FROM pg_attribute a "
                                + "LEFT JOIN pg_collation co ON co.oid = a.attcollation "
                                + "LEFT JOIN pg_namespace n ON n.oid = co.collnamespace "
                                + "WHERE a.attrelid = to_regclass(?) AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped");
                PreparedStatement type =
                        c.prepareStatement("SELECT typname, typtype, typbasetype FROM pg_type WHERE oid = ?")) {
            for (String name : keyColumns) {
                column.setString(1, table.sql());
                column.setString(2, name);
                long typeOid;
                String declared;
                boolean nondeterministic;
                String collation;
                try (ResultSet rs = column.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("column \"" + name + "\" of " + table + " does not exist", "42703");
                    }
                    typeOid = rs.getLong(1);
                    declared = rs.getString(2);
                    nondeterministic = rs.getObject(3) != null && !rs.getBoolean(3);
                    collation = rs.getString(4);
                }
                String base = baseTypeName(type, typeOid);
                boolean citext = base.equals("citext") || base.equals("_citext");
                String described = "upsert key column " + SqlIdentifier.quote(name) + " (" + declared
                        + (nondeterministic ? " COLLATE " + collation : "") + ")";
                if (citext && nondeterministic) {
                    unsupported.add(
                            described + ": its unique index compares by the nondeterministic collation, while "
                                    + "citext's own \"=\" ignores collations, so no statement can merge its rows as the index does");
                    forms.add(Form.DATABASE);
                    collations.add("");
                } else if (nondeterministic) {
                    why.add(described + " has a nondeterministic collation");
                    forms.add(Form.DATABASE);
                    collations.add(" COLLATE " + collation);
                } else if (citext) {
                    why.add(described + " is citext, compared case-insensitively by the database's locale");
                    forms.add(Form.DATABASE);
                    collations.add("");
                } else {
                    forms.add(base.equals("bpchar") ? Form.TRIMMED : Form.TEXT);
                    collations.add("");
                }
            }
        }
        return new KeyColumns(
                List.copyOf(keyColumns),
                forms,
                collations,
                unsupported.isEmpty() ? null : String.join("; ", unsupported),
                why.isEmpty() ? null : String.join("; ", why));
    }

    /** The type a column's type is, through any domains over it. */
    private static String baseTypeName(PreparedStatement type, long oid) throws SQLException {
        for (int depth = 0; depth < 100; depth++) {
            type.setLong(1, oid);
            try (ResultSet rs = type.executeQuery()) {
                if (!rs.next()) {
                    return "";
                }
                if (!"d".equals(rs.getString(2))) {
                    return rs.getString(1);
                }
                oid = rs.getLong(3);
            }
        }
        return "";
    }

    /** Why the sink cannot compare these keys as the database does, or null. */
    String unsupported() {
        return unsupported;
    }

    /** Whether the database must decide which records share a key (see {@link Form#DATABASE}). */
    boolean databaseDecides() {
        return forms.contains(Form.DATABASE);
    }

    /** Which key columns make the database decide, and why, for the log line; null if none. */
    String whyDatabaseDecides() {
        return why;
    }

    Form form(int k) {
        return forms.get(k);
    }

    /** " COLLATE schema.name" to compare key column {@code k} as its unique index does, or "". */
    String collate(int k) {
        return collations.get(k);
    }

    List<String> names() {
        return names;
    }

    /**
     * Key column {@code k}'s part of a key, from the value's text form: char(n)'s without trailing
     * spaces (only U+0020, as bpchar ignores them), every other form as it is.
     */
    String part(int k, String text) {
        if (forms.get(k) != Form.TRIMMED) {
            return text;
        }
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == ' ') {
            end--;
        }
        return end == text.length() ? text : text.substring(0, end);
    }
}
