package dev.eosink.postgres.internal;

import dev.eosink.jdbc.sql.DeadLetterBuffer;
import dev.eosink.jdbc.sql.SqlIdentifier;

/**
 * The PostgreSQL sink's optional dead-letter table: the shared {@link DeadLetterBuffer} (what is kept,
 * when, and why exactly once), and the table's PostgreSQL DDL.
 */
final class DeadLetters extends DeadLetterBuffer {

    private final SqlIdentifier table;

    DeadLetters(SqlIdentifier table) {
        super(table.sql(), column -> column);
        this.table = table;
    }

    SqlIdentifier table() {
        return table;
    }

    /** The table, created by the sink when missing and allowed to (as the marker table). */
    static String createSql(SqlIdentifier table) {
        return "CREATE TABLE IF NOT EXISTS " + table.sql()
                + " (gid text NOT NULL, sink_id text NOT NULL, subtask integer NOT NULL, checkpoint_id bigint NOT NULL,"
                + " position bigint NOT NULL, record text NOT NULL, sqlstate text, error text NOT NULL,"
                + " created_at timestamptz NOT NULL DEFAULT now())";
    }
}
