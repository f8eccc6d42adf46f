/**
 * The protocol itself: the writer and committer Flink runs, the recovery plan and its execution, the
 * committable and the writer state with their serializers, and how a writer hears of checkpoint
 * outcomes. It is the same for every database and is not an extension point: every type here is
 * {@code @Internal}, public only because the sink in {@code dev.eosink.core} and tools build on it,
 * and may change in any release. What is stable is the serialized form of the committable and of
 * the writer state: checkpoints and savepoints outlive releases, so a new release keeps reading every
 * version an earlier one wrote.
 */
package dev.eosink.core.protocol;
