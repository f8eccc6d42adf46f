package dev.eosink.testing.hardcases;

/** Which of a sink's sessions {@link HardCaseBackend#cutSessions} ends. */
public sealed interface SessionScope {

    /** Every session of the sink: writers (guard and transaction) and committers. */
    record All() implements SessionScope {}

    /** The session of one writer's open transaction. */
    record Writer(int subtask) implements SessionScope {}

    /** Every committer's session. */
    record Committers() implements SessionScope {}

    static SessionScope all() {
        return new All();
    }

    static SessionScope writer(int subtask) {
        return new Writer(subtask);
    }

    static SessionScope committers() {
        return new Committers();
    }
}
