package dev.eosink.jdbc.sql;

import java.io.Serializable;
import java.util.Objects;

/**
 * A possibly schema-qualified PostgreSQL name, always rendered quoted. Names from user configuration
 * are never pasted into SQL unquoted: a table called {@code x"; DROP TABLE y; --} is just a strange
 * table name. Quoting also keeps the case as given: {@code Orders} and {@code orders} are different
 * tables.
 */
public final class SqlIdentifier implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String schema; // null: resolved through search_path
    private final String name;

    public SqlIdentifier(String schema, String name) {
        this.schema = schema == null ? null : check(schema, "schema");
        this.name = check(name, "name");
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

    public String schema() {
        return schema;
    }

    public String name() {
        return name;
    }

    /** The quoted SQL form: {@code "schema"."name"} or {@code "name"}. */
    public String sql() {
        return schema == null ? quote(name) : quote(schema) + "." + quote(name);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SqlIdentifier)) {
            return false;
        }
        SqlIdentifier that = (SqlIdentifier) o;
        return Objects.equals(schema, that.schema) && name.equals(that.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, name);
    }

    @Override
    public String toString() {
        return sql();
    }
}
