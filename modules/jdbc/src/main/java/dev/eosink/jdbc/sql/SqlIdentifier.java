package dev.eosink.jdbc.sql;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Objects;

/**
 * A possibly schema-qualified PostgreSQL name, always rendered quoted. Names from user configuration
 * are never pasted into SQL unquoted: a table called {@code x"; DROP TABLE y; --} is just a strange
 * table name. Quoting also keeps the case as given: {@code Orders} and {@code orders} are different
 * tables. A value: equal when schema and name are.
 *
 * @param schema the schema, or null: resolved through the connection's {@code search_path} (or its
 *     default database, on MariaDB/MySQL)
 * @param name the table's (or other object's) name, as given: case-sensitive
 */
@PublicEvolving
public record SqlIdentifier(String schema, String name) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Neither part may be empty or hold a NUL; the name is required. */
    public SqlIdentifier {
        if (schema != null) {
            check(schema, "schema");
        }
        check(name, "name");
    }

    private static String check(String part, String what) {
        Objects.requireNonNull(part, what);
        if (part.isEmpty() || part.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("Invalid SQL " + what + ": empty or contains NUL");
        }
        return part;
    }

    /** Quotes one identifier: wrap in double quotes, double any embedded double quote. */
    public static String quote(String identifier) {
        return '"' + check(identifier, "identifier").replace("\"", "\"\"") + '"';
    }

    /** Quotes a string literal (for the few statements that take no parameters). */
    public static String literal(String value) {
        return '\'' + value.replace("'", "''") + '\'';
    }

    /** The quoted SQL form: {@code "schema"."name"} or {@code "name"}. */
    public String sql() {
        return schema == null ? quote(name) : quote(schema) + "." + quote(name);
    }

    @Override
    public String toString() {
        return sql();
    }
}
