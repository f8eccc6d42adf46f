/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.dialect.firebird;

import org.firebirdsql.gds.TransactionParameterBuffer;
import org.firebirdsql.gds.impl.TransactionParameterBufferImpl;
import org.firebirdsql.jaybird.fb.constants.TpbItems;
import org.firebirdsql.jdbc.FirebirdConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;

/**
 * Jaybird's transaction parameter buffers (TPB), the only way Firebird 3 sets a transaction's lock wait, its
 * treatment of record versions and of limbo records. This class alone of the dialect's (with {@link
 * FirebirdXaSource}) refers to Jaybird, and is loaded only for a Firebird connection or data source.
 *
 * <p>Jaybird maps each JDBC isolation level to a TPB. On a plain connection the mapping can be changed ({@code
 * FirebirdConnection.setTransactionParameters}); on a connection of an {@code FBXADataSource} it cannot ("Cannot set
 * transaction parameters in managed environment", measured with Jaybird 6.0.3), but the data source's own mapping
 * ({@code FBXADataSource.setTransactionParameters(level, tpb)}) applies to its connections' local transactions and
 * to their XA branches alike (measured: a nowait mapping of READ COMMITTED made an XA branch's UPDATE of a locked row
 * fail at once). The connection property {@code TRANSACTION_READ_COMMITTED} changed neither (measured). So the
 * dialect's data sources map three levels, and the dialect picks one by {@code setTransactionIsolation}:
 *
 * <ul>
 *   <li>READ COMMITTED (the default, so every XA branch's): record versions, wait, and a lock timeout if bounded;
 *   <li>SERIALIZABLE, which the sinks never ask for (Firebird's table-locking "consistency"): read committed,
 *       record versions, <b>no wait</b> and <b>ignore limbo</b>, for the ownership guard's transaction and for reads
 *       of committed data past prepared branches ({@link #SKIP_LIMBO});
 *   <li>REPEATABLE READ, which the sinks never ask for either: read committed, <b>no record versions</b>, no wait,
 *       read only: a read that fails on a row of any transaction that has not ended ({@link #PROBE}).
 * </ul>
 */
final class FirebirdTpb {

    /** The level mapped to the guard's and the past-limbo reads' TPB. */
    static final int SKIP_LIMBO = Connection.TRANSACTION_SERIALIZABLE;
    /** The level mapped to the marker probe's TPB. */
    static final int PROBE = Connection.TRANSACTION_REPEATABLE_READ;

    private FirebirdTpb() {}

    /** Read committed, record versions, write, wait, and {@code isc_tpb_lock_timeout} when {@code lockTimeout}. */
    static TransactionParameterBuffer branch(Duration lockTimeout) {
        TransactionParameterBuffer tpb = readCommitted(TpbItems.isc_tpb_rec_version, TpbItems.isc_tpb_write);
        tpb.addArgument(TpbItems.isc_tpb_wait);
        if (lockTimeout != null) {
            tpb.addArgument(TpbItems.isc_tpb_lock_timeout, seconds(lockTimeout));
        }
        return tpb;
    }

    /** Read committed, record versions, write, no wait, ignore limbo. */
    static TransactionParameterBuffer skipLimbo() {
        TransactionParameterBuffer tpb = readCommitted(TpbItems.isc_tpb_rec_version, TpbItems.isc_tpb_write);
        tpb.addArgument(TpbItems.isc_tpb_nowait);
        tpb.addArgument(TpbItems.isc_tpb_ignore_limbo);
        return tpb;
    }

    /** Read committed, no record versions, read only, no wait. */
    static TransactionParameterBuffer probe() {
        TransactionParameterBuffer tpb = readCommitted(TpbItems.isc_tpb_no_rec_version, TpbItems.isc_tpb_read);
        tpb.addArgument(TpbItems.isc_tpb_nowait);
        return tpb;
    }

    /** A lock timeout in Firebird's whole seconds, rounded up, at least 1 (0 would mean no wait). */
    static int seconds(Duration timeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000));
    }

    private static TransactionParameterBuffer readCommitted(int versions, int access) {
        TransactionParameterBuffer tpb = new TransactionParameterBufferImpl();
        tpb.addArgument(TpbItems.isc_tpb_read_committed);
        tpb.addArgument(versions);
        tpb.addArgument(access);
        return tpb;
    }

    /**
     * Makes {@code c} map {@code level} to {@code wanted}: nothing if it does already (a connection of a data source
     * that {@link FirebirdXaSource} made), set on a plain connection, and refused with {@code remedy} on a connection
     * of a data source made otherwise.
     */
    static void ensure(Connection c, int level, TransactionParameterBuffer wanted, String what, String remedy)
            throws SQLException {
        FirebirdConnection firebird = c.unwrap(FirebirdConnection.class);
        TransactionParameterBuffer have = firebird.getTransactionParameters(level);
        if (have != null && Arrays.equals(have.toBytes(), wanted.toBytes())) {
            return;
        }
        try {
            firebird.setTransactionParameters(level, wanted);
        } catch (SQLException e) {
            throw new SQLException(
                    what + " needs a Firebird transaction that Jaybird cannot set on this connection (" + e.getMessage()
                            + "). " + remedy,
                    e.getSQLState(),
                    e);
        }
    }
}
