/**
 * The SPI of the exactly-once protocol: what a transactional system implements to get it, a database or
 * anything else that can prepare writes and later commit or roll them back by name (the example file
 * sink of {@code dev.eosink.examples.files} is a directory; {@code docs/extending.md} walks through it).
 * It is a serializable {@link dev.eosink.core.spi.TransactionalDatabase} that opens one {@link
 * dev.eosink.core.spi.WriterSession} per writer subtask (made of its roles: the {@link
 * dev.eosink.core.spi.Recovery} of prepared transactions under the ownership guard, the {@link
 * dev.eosink.core.spi.EpochWriter} of the open transaction, and, only where writes must be carried past a
 * barrier, {@link dev.eosink.core.spi.CarriedWrites}) and one {@link dev.eosink.core.spi.CommitSession}
 * per committer subtask; {@link dev.eosink.core.ExactlyOnceSink#ExactlyOnceSink(TransactionalDatabase,
 * dev.eosink.core.SinkSettings)} makes the Flink sink of it.
 *
 * <p>The names are a database's, and mean for any resource: a <em>database</em> is the resource; a
 * <em>transaction</em> is one epoch's writes of one writer subtask, invisible until committed; to
 * <em>prepare</em> is to make them durable and committable by name, from any session, after any crash;
 * the <em>marker</em> (a "marker row" in a database) is evidence, written with the transaction and
 * visible exactly when it committed, that proves the outcome of a transaction whose name is gone.
 *
 * <p>What a resource must provide: open an epoch and write into it; prepare it under the {@link
 * dev.eosink.core.TransactionId} it is given; commit and roll back a prepared transaction by that id,
 * idempotently (a commit of a name no longer prepared answers {@code NOT_FOUND}, never fails); list the
 * prepared ids of a sink id; prove a vanished id's outcome by its marker; and an ownership guard per
 * sink id and subtask index that one live session holds at a time, and that is freed when its holder
 * dies.
 *
 * <p>What the core guarantees in return: the ids (unique per sink, subtask, checkpoint and run, and
 * parseable back); a commit only for a transaction whose checkpoint completed, and every such
 * transaction committed, by the restored committer after a failure; the recovery plan at start (what
 * to commit and what to roll back, from the restored state and the ids alone), carried out under the
 * guard of every subtask index involved, including the indices a writer adopts after a rescale down;
 * the orphan rule (a prepared transaction no restored state accounts for is rolled back only when no
 * completed snapshot can have promised it, else the start is refused, per {@link
 * dev.eosink.core.LeftoverPolicy}); and a LOST failure, naming the transaction, when a commit finds
 * neither the prepared transaction nor its marker.
 *
 * <p>An implementation may rely on what the interfaces' Javadoc states, and on nothing else of the
 * protocol: the order of calls (ownership claimed and recovery done before the first write, one open
 * transaction at a time, prepare only for an epoch that wrote), which thread calls (the task's), and
 * what the protocol does with each answer (a {@link dev.eosink.core.spi.RetriableCommitException} is
 * retried, a commit of a name no longer prepared is decided by the marker, a {@link
 * dev.eosink.core.spi.MisconfigurationException} from a writer's or committer's start fails the job without
 * restarts). In return it must keep
 * the contracts stated there: a marker with every prepared transaction, no reconnect inside an
 * epoch, no credentials in {@code toString}. The types here are {@code @PublicEvolving}, but for
 * {@link dev.eosink.core.spi.HookedDatabase}, which is the sink's own wrapper for lifecycle hooks.
 */
package dev.eosink.core.spi;
