/**
 * What a database implements to get the exactly-once protocol: a serializable {@link
 * dev.eosink.core.spi.TransactionalDatabase} that opens one {@link dev.eosink.core.spi.WriterSession}
 * per writer subtask and one {@link dev.eosink.core.spi.CommitSession} per committer subtask.
 *
 * <p>An implementation may rely on what the interfaces' Javadoc states, and on nothing else of the
 * protocol: the order of calls (ownership claimed and recovery done before the first write, one open
 * transaction at a time, prepare only for an epoch that wrote), which thread calls (the task's), and
 * what the protocol does with each answer (a {@link dev.eosink.core.spi.RetriableCommitException} is
 * retried, a commit of a name no longer prepared is decided by the marker). In return it must keep
 * the contracts stated there: a marker row inside every prepared transaction, no reconnect inside an
 * epoch, no credentials in {@code toString}. The types here are {@code @PublicEvolving}, but for
 * {@link dev.eosink.core.spi.HookedDatabase}, which is the sink's own wrapper for lifecycle hooks.
 */
package dev.eosink.core.spi;
