package dev.eosink.xa.internal;

import java.sql.Connection;

/**
 * Any other XA database (Oracle, SQL Server, DB2, ...), untested here: standard SQL for the marker
 * table, and the connection ended after every prepare, which the XA specification allows everywhere
 * (a prepared branch is independent of the connection). There is no portable session lock, so a
 * second job with the same sink id cannot be detected, and nothing covers the sessions that carry
 * branches: a restarted writer cannot tell whether a session of the writer before it (a task manager
 * that died while its XA PREPARE was still running on the server) may still prepare a branch after
 * recovery listed the prepared ones. Such a branch stays prepared, holding its locks, until a later
 * start of this subtask rolls it back, or an operator does. The writer says so at start.
 */
final class GenericXaDialect extends XaDialect {

    private final String product;

    GenericXaDialect(String product) {
        this.product = product;
    }

    @Override
    public String name() {
        return String.valueOf(product);
    }

    @Override
    public String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    @Override
    public boolean keepsConnectionAfterPrepare() {
        return false;
    }

    @Override
    public boolean tryLock(Connection guard, String sinkHash, int subtask) {
        return true;
    }

    @Override
    public void unlock(Connection guard, String sinkHash, int subtask) {}

    @Override
    public boolean guardsOwnership() {
        return false;
    }

    @Override
    public String markerDdl(String schema, String table) {
        return "CREATE TABLE " + qualified(schema, table)
                + " (gid VARCHAR(200) NOT NULL PRIMARY KEY, sink_id VARCHAR(100) NOT NULL, subtask INTEGER NOT NULL,"
                + " checkpoint_id BIGINT NOT NULL, row_count BIGINT NOT NULL,"
                + " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)";
    }

    @Override
    public String markerPruneSql(String schema, String table) {
        return "DELETE FROM " + qualified(schema, table)
                + " WHERE sink_id = ? AND created_at < CURRENT_TIMESTAMP - ? * INTERVAL '1' SECOND";
    }
}
