/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.util.Optional;

/**
 * One writer subtask's session on the database (or other resource: see the package documentation), made of
 * the objects that play its roles:
 *
 * <ul>
 *   <li>{@link #recovery()}: the ownership guard and the recovery of prepared transactions, at start and
 *       between epochs ({@link Recovery});
 *   <li>{@link #epoch()}: the one open transaction, written and prepared at the barrier ({@link EpochWriter});
 *   <li>{@link #carriedWrites()}: the optional capability to carry writes past a barrier ({@link
 *       CarriedWrites}), which only upserts into a database need.
 * </ul>
 *
 * <p>A role may be played by the session itself or by an object of its own (an XA session keeps recovery on
 * a guard connection and the epoch on another). Each accessor answers the same for the session's life: the
 * writer asks once, when it opens. The session is the one owner: {@link #close()} ends every role, and no
 * role is closed by itself.
 */
@PublicEvolving
public interface WriterSession<IN> extends AutoCloseable {

    /** The ownership guard and the recovery of prepared transactions. */
    Recovery recovery();

    /** The open transaction of the epoch. */
    EpochWriter<IN> epoch();

    /**
     * The capability to carry writes past a barrier; empty for a resource whose sessions never carry any (one
     * whose prepared transactions lock nothing the next epoch writes, like files appended to).
     */
    Optional<CarriedWrites> carriedWrites();

    /**
     * Ends the session and every role: the guards it holds are released, an open transaction is rolled back
     * (the resource's end of the session does it), prepared ones are left alone.
     */
    @Override
    void close() throws IOException;
}
