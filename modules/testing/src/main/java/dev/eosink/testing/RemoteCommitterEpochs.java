/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CommitSession;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two epochs of an upsert writer whose committer runs in another JVM, on a real database, for each backend's
 * session test: the first writes keys {@code 0..held+more-1} at value 1 and is prepared; the second writes
 * {@code held} of those keys at value 2 (held while the first is prepared, the writer looking at the
 * database through {@link RemoteCommitterCommits}), then another session (the other JVM's committer)
 * commits the first, and the rest of the old keys follow, each after a new key, at value 2. The held
 * upserts must run within the second epoch: nothing is carried past its barrier. The table then holds
 * {@code held + 2 * more} keys, all at value 2; the caller checks it.
 */
public final class RemoteCommitterEpochs {

    private RemoteCommitterEpochs() {}

    /** Runs both epochs of records {@code {key, value}}, committing both; {@code held} is what the first look needs. */
    public static void run(
            SubtaskContext context, WriterSession<long[]> writer, CommitSession otherJvm, int held, int more)
            throws Exception {
        String run = TransactionId.newRunToken(context.execution());
        TransactionId first = new TransactionId(context.sinkId(), 0, 1, run);
        TransactionId second = new TransactionId(context.sinkId(), 0, 2, run);
        writer.recovery().claim(0, 10_000);
        RemoteCommitterCommits remote = new RemoteCommitterCommits(writer, first);
        writer.epoch().ownCommits(remote);

        int old = held + more;
        writer.epoch().begin(first);
        for (long k = 0; k < old; k++) {
            writer.epoch().write(new long[] {k, 1}, k);
        }
        writer.epoch().flush();
        writer.epoch().prepare(first, old);
        remote.prepared();

        writer.epoch().begin(second);
        long position = 0;
        for (long k = 0; k < held; k++) {
            writer.epoch().write(new long[] {k, 2}, position++); // keys of the prepared transaction: held
        }
        assertThat(remote.looks())
                .as("looks while the first transaction is prepared")
                .isPositive();
        assertThat(remote.committedSeen()).isFalse();
        otherJvm.commit(first);
        for (long k = held; k < old; k++) {
            writer.epoch().write(new long[] {old + k, 2}, position++);
            writer.epoch().write(new long[] {k, 2}, position++);
        }
        assertThat(remote.committedSeen())
                .as("the commit seen within the epoch")
                .isTrue();
        writer.epoch().flush();
        assertThat(writer.carriedWrites().orElseThrow().held().holdsWrites())
                .as("nothing carried past the barrier")
                .isFalse();
        writer.epoch().prepare(second, position);
        otherJvm.commit(second);
        assertThat(writer.recovery().listPrepared())
                .as("prepared transactions left")
                .isEmpty();
    }
}
