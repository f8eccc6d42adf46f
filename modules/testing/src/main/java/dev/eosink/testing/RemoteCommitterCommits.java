/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.Recovery;
import dev.eosink.core.spi.WriterSession;

import java.io.IOException;

/**
 * The {@link OwnCommits} a writer session sees when its committer runs in another JVM, for tests of a
 * session on a real database: no signal ever comes, so whether the writer's previous transaction was
 * committed is asked of the database, through the session's own {@link Recovery#listPrepared},
 * from within an epoch, as the writer's gate does. Pending from {@link #prepared()} until the database
 * no longer lists that transaction; a look is due whenever it is pending.
 */
public final class RemoteCommitterCommits implements OwnCommits {

    private final WriterSession<?> session;
    private final TransactionId previous;
    private boolean prepared;
    private boolean committedSeen;
    private int looks;

    /** The commits {@code session} sees of its {@code previous} transaction, not prepared until {@link #prepared()}. */
    public RemoteCommitterCommits(WriterSession<?> session, TransactionId previous) {
        this.session = session;
        this.previous = previous;
    }

    /** The previous transaction is prepared now: from here on, statements that touch its rows wait. */
    public void prepared() {
        prepared = true;
    }

    /** How many times the database was asked. */
    public int looks() {
        return looks;
    }

    /** Whether the database showed the previous transaction committed (no longer prepared). */
    public boolean committedSeen() {
        return committedSeen;
    }

    @Override
    public boolean pending() {
        return prepared && !committedSeen;
    }

    @Override
    public boolean lookDue() {
        return pending();
    }

    @Override
    public boolean await() throws IOException {
        if (pending()) {
            looks++;
            committedSeen = !session.recovery().listPrepared().contains(previous);
        }
        return !pending();
    }
}
