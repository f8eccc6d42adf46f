package dev.eosink.core.spi;

import java.io.IOException;
import java.io.Serializable;

/**
 * The database contract of the protocol: everything that differs between PostgreSQL's native
 * {@code PREPARE TRANSACTION} and a {@code javax.sql.XADataSource}. The protocol itself (naming,
 * which transactions to roll back at start, when to commit, how to classify a commit's outcome)
 * lives in {@code dev.eosink.core.protocol} and does not change per database.
 *
 * <p>Implementations are serializable configuration, shipped with the job graph; they open
 * sessions on the task managers. They must never render credentials in {@link #toString()}.
 *
 * @param <IN> the records the sink writes
 */
public interface TransactionalDatabase<IN> extends Serializable {

    /**
     * Opens the session of one writer subtask. Before it returns, it has checked the server's
     * settings and the role's privileges (misconfiguration must be found at job start, not at the
     * first checkpoint) and claimed the subtask's {@link WriterSession#claim ownership guard}.
     */
    WriterSession<IN> openWriter(SubtaskContext context) throws IOException;

    /** Opens the session of one committer subtask. */
    CommitSession openCommitter(SubtaskContext context) throws IOException;

    /** What the sink writes to, for messages: "table \"public\".\"orders\"". Never credentials. */
    String target();
}
