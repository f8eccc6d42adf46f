package dev.eosink.core.protocol;

import dev.eosink.core.SinkSettings;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.OwnCommits;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.WriterSession;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.util.function.ThrowingRunnable;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A session whose writes may need its previous transaction's locks (upserts) asks the writer's {@link
 * OwnCommits} to let the task's mailbox run until the committer committed that transaction, and only
 * then writes. Without this, the write would wait on the database for a commit that only this very
 * thread can deliver.
 */
class OwnCommitWaitTest {

    private final List<String> events = new ArrayList<>();
    private final Deque<ThrowingRunnable<? extends Exception>> mails = new ArrayDeque<>();

    @Test
    void nextEpochWritesOnlyAfterThePreviousTransactionCommitted() throws Exception {
        ExactlyOnceWriter<String> writer = writer(true);
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        // The completed checkpoint's commit is queued in the mailbox, as Flink delivers it.
        mails.add(() -> {
            events.add("commit " + prepared.checkpointId());
            CommitSignals.committed(prepared);
        });

        writer.write("b", null);

        assertThat(events).containsExactly("write a", "prepare 1", "commit 1", "write b");
        assertThat(CommitSignals.isCommitted(prepared)).as("forgotten once consumed").isFalse();
    }

    @Test
    void pendingUntilTheCommitArrivesThenNeverAgain() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        assertThat(gate.pending()).as("nothing prepared yet").isFalse();
        writer.write("a", null);
        TransactionId prepared = writer.prepareCommit().iterator().next().id();
        assertThat(gate.pending()).isTrue();

        CommitSignals.committed(prepared);

        assertThat(gate.pending()).isFalse();
        assertThat(CommitSignals.isCommitted(prepared)).as("forgotten once seen").isFalse();
        gate.await(); // returns at once
        assertThat(mails).isEmpty();
    }

    @Test
    void onlyTheLatestPreparedTransactionIsAwaited() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        TransactionId first = writer.prepareCommit().iterator().next().id();
        writer.snapshotState(1);
        writer.write("b", null);
        TransactionId second = writer.prepareCommit().iterator().next().id();
        // A declined checkpoint: the first is committed together with the second.
        mails.add(() -> {
            CommitSignals.committed(first);
            CommitSignals.committed(second);
            events.add("commit both");
        });

        gate.await();

        assertThat(events).endsWith("prepare 2", "commit both");
        assertThat(CommitSignals.isCommitted(first)).as("the superseded one is not kept").isFalse();
    }

    @Test
    void insertsDoNotWait() throws Exception {
        ExactlyOnceWriter<String> writer = writer(false);
        writer.write("a", null);
        writer.prepareCommit();
        mails.add(() -> events.add("commit"));

        writer.write("b", null);

        assertThat(events).containsExactly("write a", "prepare 1", "write b");
        assertThat(mails).hasSize(1);
    }

    private OwnCommits gate;

    private ExactlyOnceWriter<String> writer(boolean waits) throws Exception {
        WriterSession<String> session = new NoOpWriterSession() {
            @Override
            public void ownCommits(OwnCommits ownCommits) {
                gate = ownCommits;
            }

            @Override
            public void write(String record, long positionInEpoch) throws java.io.IOException {
                if (waits) {
                    gate.await(); // as an upsert session does before a statement that may touch old rows
                }
                events.add("write " + record);
            }

            @Override
            public void prepare(TransactionId id, long rows) {
                events.add("prepare " + id.checkpointId());
            }

        };
        MailboxExecutor mailbox = new MailboxExecutor() {
            @Override
            public void execute(MailboxExecutor.MailOptions options, ThrowingRunnable<? extends Exception> command, String format,
                    Object... args) {
                mails.add(command);
            }

            @Override
            public void yield() throws InterruptedException {
                if (!tryYield()) {
                    throw new IllegalStateException("no mail to run");
                }
            }

            @Override
            public boolean tryYield() {
                ThrowingRunnable<? extends Exception> mail = mails.poll();
                if (mail == null) {
                    return false;
                }
                try {
                    mail.run();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
                return true;
            }

            @Override
            public boolean shouldInterrupt() {
                return false;
            }
        };
        return new ExactlyOnceWriter<>(
                new SubtaskContext("upserts", 0, 1, 0, "job", OptionalLong.empty()),
                SinkSettings.defaults("upserts"),
                "table t",
                session,
                List.of(),
                new SimpleCounter(),
                mailbox);
    }
}
