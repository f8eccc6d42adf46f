/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.io;

import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.QueryExecutorBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.net.Socket;
import java.sql.Connection;

/**
 * pgjdbc's socket, for {@link AbortiveClose}. pgjdbc does not expose it: it is {@code
 * QueryExecutorBase.pgStream} (protected), read by reflection here and nowhere else. The only class of
 * this module that refers to pgjdbc, which is an optional dependency: {@link SocketAccess#forConnection}
 * loads it for connections that unwrap to pgjdbc's alone.
 */
final class PgJdbcSocketAccess implements SocketAccess {

    static final PgJdbcSocketAccess INSTANCE = new PgJdbcSocketAccess();

    private static final Logger LOG = LoggerFactory.getLogger(PgJdbcSocketAccess.class);

    private static final Field PG_STREAM = pgStreamField();

    private PgJdbcSocketAccess() {}

    private static Field pgStreamField() {
        try {
            Field field = QueryExecutorBase.class.getDeclaredField("pgStream");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.debug("pgjdbc's QueryExecutorBase.pgStream is not accessible", e);
            return null;
        }
    }

    @Override
    public Socket socket(Connection connection, Object owner) throws Exception {
        if (PG_STREAM == null) {
            AbortiveClose.warnUnreachable(connection, owner);
            return null;
        }
        QueryExecutor executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
        if (!(executor instanceof QueryExecutorBase)) {
            AbortiveClose.warnUnreachable(connection, owner);
            return null;
        }
        PGStream stream = (PGStream) PG_STREAM.get(executor);
        return stream == null ? null : stream.getSocket();
    }
}
