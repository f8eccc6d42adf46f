package dev.eosink.core;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The name of one database transaction of one sink subtask: {@code eos1/<sinkId>/<subtask>/<checkpoint>/<run>}.
 *
 * <p>{@code run} is eight characters: the first four are the {@linkplain #jobTag(String) tag of the Flink
 * job} that prepared the transaction (a hash of its job id), the last four are random per writer
 * instance. The job tag lets a restarted attempt of a job tell its own job's leftovers from another
 * job's, and a restored writer tell the transactions of the job that took the restored checkpoint
 * from those of other jobs; the random part keeps two writer instances of one job apart.
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
 * @param run the writer instance's run token: the {@linkplain #jobTag() job tag}, then four random characters
 */
@PublicEvolving
public record TransactionId(String sinkId, int subtask, long checkpointId, String run) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The first path element of every name; bump it if the layout ever changes. */
    public static final String PREFIX = "eos1";

    /** Sink ids: a stable, human-readable name. No '/', so that names parse unambiguously. */
    public static final Pattern SINK_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");

    private static final Pattern RUN = Pattern.compile("[a-z0-9]{8}");

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
            throw new IllegalArgumentException("run token must be 8 characters [a-z0-9], was " + run);
        }
    }

    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    /** Length of the job tag at the start of every run token. */
    public static final int JOB_TAG_LENGTH = 4;

    /**
     * A fresh run token for a writer instance of job {@code jobId}: the job's tag, then four random
     * characters, so that restarted attempts never reuse a name.
     */
    public static String newRunToken(String jobId) {
        SecureRandom random = new SecureRandom();
        StringBuilder token = new StringBuilder(jobTag(jobId));
        while (token.length() < 8) {
            token.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return token.toString();
    }

    /**
     * The four characters that stand for a Flink job id in run tokens: a stable hash, the same on
     * every task manager. Two jobs share a tag with a chance of one in 36^4 (1.7 million); a job
     * submitted again with the same fixed job id (some deployment tools do that) has the same tag.
     */
    public static String jobTag(String jobId) {
        CRC32 crc = new CRC32();
        crc.update(Objects.requireNonNull(jobId, "jobId").getBytes(StandardCharsets.UTF_8));
        long value = crc.getValue() % (36L * 36 * 36 * 36);
        char[] tag = new char[JOB_TAG_LENGTH];
        for (int i = JOB_TAG_LENGTH - 1; i >= 0; i--) {
            tag[i] = ALPHABET.charAt((int) (value % 36));
            value /= 36;
        }
        return new String(tag);
    }

    /** Validates a sink id, with a message that says what is allowed. */
    public static String checkSinkId(String sinkId) {
        if (sinkId == null || !SINK_ID.matcher(sinkId).matches()) {
            throw new IllegalArgumentException(
                    "Invalid sink id '"
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
                    new TransactionId(
                            parts[1], Integer.parseInt(parts[2]), Long.parseLong(parts[3]), parts[4]));
        } catch (IllegalArgumentException e) { // includes NumberFormatException
            return Optional.empty();
        }
    }

    /** The tag of the job whose writer prepared this transaction: the first four characters of {@link #run()}. */
    public String jobTag() {
        return run.substring(0, JOB_TAG_LENGTH);
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
}
