package dev.eosink.jdbc.sql;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.Objects;

/**
 * The marker table: one row per prepared transaction, written inside that transaction. A row is
 * visible exactly when its transaction committed, so it is the proof the committer needs when a
 * transaction name is no longer prepared: committed before a crash, or rolled back by someone else.
 *
 * <p>What every sink's marker table holds: {@code gid} (the transaction's full name, the key),
 * {@code sink_id}, {@code subtask}, {@code checkpoint_id}, {@code row_count} and {@code created_at}
 * (set by the database when the row is written), with an index on {@code (sink_id, created_at)} for
 * pruning. This class writes that table in PostgreSQL's SQL, for the PostgreSQL sink and for the XA
 * sink on PostgreSQL alike, so both sinks' markers look the same there; the XA sink's other dialects
 * write the same columns in their own SQL. The DDL here is the same as sql/01-marker-table.sql.
 *
 * @param table the marker table's name
 */
@Internal
public record MarkerTable(SqlIdentifier table) implements Serializable {

    private static final long serialVersionUID = 1L;

    public MarkerTable {
        Objects.requireNonNull(table, "table");
    }

    /** The table and the index pruning uses; the same as sql/01-marker-table.sql. */
    public String createSql() {
        return "CREATE TABLE IF NOT EXISTS "
                + table.sql()
                + " (gid text PRIMARY KEY, sink_id text NOT NULL, subtask integer NOT NULL,"
                + " checkpoint_id bigint NOT NULL, row_count bigint NOT NULL,"
                + " created_at timestamptz NOT NULL DEFAULT now()); "
                + "CREATE INDEX IF NOT EXISTS "
                + SqlIdentifier.quote(table.name() + "_sink_created")
                + " ON "
                + table.sql()
                + " (sink_id, created_at)";
    }

    public String insertSql() {
        return "INSERT INTO " + table.sql() + " (gid, sink_id, subtask, checkpoint_id, row_count) VALUES (?, ?, ?, ?, ?)";
    }

    public String existsSql() {
        return "SELECT 1 FROM " + table.sql() + " WHERE gid = ?";
    }

    /**
     * Count, rows, lowest and highest checkpoint of a sink's ({@code ?1}) markers named after checkpoint
     * {@code ?2} whose epoch began after {@code ?3} (epoch milliseconds).
     */
    public String committedAfterSql() {
        return "SELECT count(*), coalesce(sum(row_count), 0), min(checkpoint_id), max(checkpoint_id) FROM " + table.sql()
                + " WHERE sink_id = ? AND checkpoint_id > ? AND created_at > to_timestamp(? / 1000.0)";
    }

    public String pruneSql() {
        return "DELETE FROM "
                + table.sql()
                + " WHERE sink_id = ? AND created_at < now() - make_interval(secs => ?)";
    }
}
