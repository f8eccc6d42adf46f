/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The name of one database transaction of one sink subtask: {@code eos1/<sinkId>/<subtask>/<checkpoint>/<run>}.
 *
 * <p>{@code run} is twelve characters: the first eight are the {@linkplain #executionTag(String, String) tag
 * of the execution} that prepared the transaction, the last four are random per writer instance. An
 * execution is one submission of a job graph: its failovers, and a JobManager failover that recovers
 * the job graph, keep it; a new submission is a new execution, even under the same job id (Flink fixes the
 * job id of an application with high availability, so every redeployment of it has the same one). The
 * execution tag lets a restarted attempt tell what its own execution prepared from what anything else
 * did, and a restored writer tell the transactions of the execution that took the restored checkpoint from
 * those of others; the random part keeps two writer instances of one execution apart. Names of the first
 * layout (eight characters: a four-character tag of the job id, then four random) still parse; their tag
 * never equals an execution tag, so they always count as another execution's.
 *
 * <p>Invariants this name keeps, on which recovery relies:
 *
 * <ul>
 *   <li>Unique per sink, subtask, checkpoint and run: two sinks in one job differ by sink id, two
 *       subtasks by index, two epochs by checkpoint, and two attempts that restart from the same
 *       checkpoint by the random {@code run} token. No two live transactions can share a name.
 *   <li>Parseable back: the startup cleanup and the operator tooling read sink id, subtask and
 *       checkpoint from nothing but the name found in the database.
 *   <li>{@code checkpointId} is never larger than the checkpoint whose barrier prepared the
 *       transaction (it is the last checkpoint this writer snapshotted, plus one). Every checkpoint
 *       that completed before the barrier was snapshotted by this writer, so a transaction whose
 *       checkpoint did not complete always carries a number greater than the checkpoint a later run
 *       restores from. That is what lets the startup cleanup roll back exactly those.
 *   <li>At most {@link #MAX_LENGTH} bytes: PostgreSQL's gid limit is 200 bytes.
 * </ul>
 *
 * <p>A value: equal when every part is equal. Checkpoints carry it as its {@link #toString() name}
 * (see {@code PreparedTransactionSerializer}), never in Java serialization.
 *
 * @param sinkId the sink's id, as {@link #checkSinkId} accepts it
 * @param subtask the index of the writer subtask that prepared it
 * @param checkpointId the last checkpoint that writer snapshotted, plus one
 * @param run the writer instance's run token: the {@linkplain #executionTag() execution tag}, then four random
 *     characters
 */
@PublicEvolving
public record TransactionId(String sinkId, int subtask, long checkpointId, String run) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The first path element of every name; bump it if the layout ever changes. */
    public static final String PREFIX = "eos1";

    /** Sink ids: a stable, human-readable name. No '/', so that names parse unambiguously. */
    public static final Pattern SINK_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");

    /** Run tokens: this layout's twelve characters, or the first layout's eight. */
    private static final Pattern RUN = Pattern.compile("[a-z0-9]{12}|[a-z0-9]{8}");

    /** PostgreSQL refuses gids of 200 bytes or more. */
    public static final int MAX_LENGTH = 199;

    /** Validates every part; {@link #parse} relies on it to refuse names of other layouts. */
    public TransactionId {
        checkSinkId(sinkId);
        if (subtask < 0) {
            throw new IllegalArgumentException("subtask must be >= 0, was " + subtask);
        }
        if (checkpointId < 0) {
            throw new IllegalArgumentException("checkpointId must be >= 0, was " + checkpointId);
        }
        if (run == null || !RUN.matcher(run).matches()) {
            throw new IllegalArgumentException("run token must be 12 characters [a-z0-9], was " + run);
        }
    }

    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    /** Length of the execution tag at the start of every run token. */
    public static final int EXECUTION_TAG_LENGTH = 8;

    /** Length of a run token: the execution tag, then four random characters. */
    public static final int RUN_LENGTH = EXECUTION_TAG_LENGTH + 4;

    /** Length of the job tag at the start of a run token of the first layout (eight characters in all). */
    private static final int LEGACY_TAG_LENGTH = 4;

    /**
     * A fresh run token for a writer instance of the execution tagged {@code executionTag}: the tag, then
     * four random characters, so that restarted attempts never reuse a name.
     */
    public static String newRunToken(String executionTag) {
        if (executionTag == null
                || executionTag.length() != EXECUTION_TAG_LENGTH
                || !RUN.matcher(executionTag + "0000").matches()) {
            throw new IllegalArgumentException(
                    "an execution tag is " + EXECUTION_TAG_LENGTH + " characters [a-z0-9], was " + executionTag);
        }
        SecureRandom random = new SecureRandom();
        StringBuilder token = new StringBuilder(executionTag);
        while (token.length() < RUN_LENGTH) {
            token.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return token.toString();
    }

    /**
     * The eight characters that stand for one execution of a Flink job in run tokens: a hash of the job id
     * and of {@code executionNonce}, a random value the sink draws when Flink translates it into a job graph
     * (so every task of one submission has the same one, on every task manager, and a new submission has a
     * new one). Two executions share a tag with a chance of one in 36^8 (2.8 * 10^12).
     */
    public static String executionTag(String jobId, String executionNonce) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        byte[] digest = sha.digest((Objects.requireNonNull(jobId, "jobId") + "/"
                        + Objects.requireNonNull(executionNonce, "executionNonce"))
                .getBytes(StandardCharsets.UTF_8));
        // 64 bits of the digest, as eight base-36 digits (36^8 < 2^42: the modulo's bias is negligible).
        long value = Long.remainderUnsigned(ByteBuffer.wrap(digest).getLong(), 2_821_109_907_456L);
        char[] tag = new char[EXECUTION_TAG_LENGTH];
        for (int i = EXECUTION_TAG_LENGTH - 1; i >= 0; i--) {
            tag[i] = ALPHABET.charAt((int) (value % 36));
            value /= 36;
        }
        return new String(tag);
    }

    /** A fresh execution nonce for {@link #executionTag}: 128 random bits, as hex. */
    public static String newExecutionNonce() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** Validates a sink id, with a message that says what is allowed. */
    public static String checkSinkId(String sinkId) {
        if (sinkId == null || !SINK_ID.matcher(sinkId).matches()) {
            throw new IllegalArgumentException("Invalid sink id '"
                    + sinkId
                    + "': a sink id is 1 to 100 characters of letters, digits, '_', '.' and '-', "
                    + "starting with a letter or digit. It must stay the same across restarts "
                    + "of the job, and differ between sinks writing to the same database.");
        }
        return sinkId;
    }

    /** The name prefix shared by every transaction of one sink: what cleanup and tooling filter on. */
    public static String sinkPrefix(String sinkId) {
        return PREFIX + "/" + checkSinkId(sinkId) + "/";
    }

    /** Parses a name written by {@link #toString()}; empty for anything else (other sinks, other tools). */
    public static Optional<TransactionId> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String[] parts = name.split("/", -1);
        if (parts.length != 5 || !PREFIX.equals(parts[0])) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new TransactionId(parts[1], Integer.parseInt(parts[2]), Long.parseLong(parts[3]), parts[4]));
        } catch (IllegalArgumentException e) { // includes NumberFormatException
            return Optional.empty();
        }
    }

    /**
     * The tag of the execution whose writer prepared this transaction: the first eight characters of {@link
     * #run()}; for a name of the first layout, the four characters of its job tag, which no execution has.
     */
    public String executionTag() {
        return tagOf(run);
    }

    /** The execution tag at the start of run token {@code run}, of either layout. */
    public static String tagOf(String run) {
        return run.substring(0, run.length() == RUN_LENGTH ? EXECUTION_TAG_LENGTH : LEGACY_TAG_LENGTH);
    }

    /** The name as stored in the database (PostgreSQL's gid). */
    @Override
    public String toString() {
        String name = PREFIX + "/" + sinkId + "/" + subtask + "/" + checkpointId + "/" + run;
        // Cannot happen with a valid sink id (100 chars) and numeric fields; kept as a tripwire.
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_LENGTH) {
            throw new IllegalStateException("transaction id longer than " + MAX_LENGTH + " bytes: " + name);
        }
        return name;
    }

    // Written out, not generated by the compiler: the architecture test says why.
    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof TransactionId other
                        && Objects.equals(sinkId, other.sinkId)
                        && subtask == other.subtask
                        && checkpointId == other.checkpointId
                        && Objects.equals(run, other.run);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sinkId, subtask, checkpointId, run);
    }
}
