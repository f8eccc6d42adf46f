/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The hard cases where a fixed job id can matter ({@link RunDimension#FIXED_JOB_ID}): every job of a
 * case is submitted under one job id, derived from the case's name, so every run of the case, on every
 * backend, uses the same one, as every redeployment of an application with high availability does. A
 * test class extends this class once per backend, giving it, and nothing else; a JDBC backend's extends
 * {@link JdbcFixedJobIdHardCases}.
 *
 * <p>The job id can matter only where a job meets what another job left prepared: the names of
 * transactions, the prepared transactions a starting writer finds and whose they are, the checkpoints a
 * restore names. So the cases run here are those of more than one job, or of a job that starts among
 * another's leftovers: a savepoint restored without and then with the sink's state, a savepoint restored
 * after a run from an older one died, a cancelled run resumed from its retained checkpoint, a rescale,
 * a savepoint restored twice at a higher parallelism (a subtask new to it judges what the earlier restore
 * prepared on its index), two runs of one job, leftovers at a fresh start. Left to the plain suite: two
 * more that restore older savepoints the same way as these ({@code restoreFromAnOlderSavepoint...},
 * {@code upscaleThatFails...}), the other upscales of a savepoint or checkpoint restored twice, and a
 * stop with a savepoint resumed ({@code stopWithSavepoint...}), which leaves nothing prepared for
 * the next run to judge (the stop commits everything up to it, and the resumed committers find their
 * transactions committed by their markers, whoever's they are). The cases of a single job, with failures
 * inside it, are one submission whatever its id; and a second live job of the same sink cannot run under
 * the same job id at all (one cluster runs a job id once).
 *
 * <p>Every case runs on every backend; none is skipped.
 */
public abstract class FixedJobIdHardCases extends HardCaseSuite {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setConfiguration(ForgetfulHaServicesFactory.configure(new Configuration()))
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(SLOTS)
                    .build());

    /** The cases on {@code backend}, each job run under one fixed job id. */
    protected FixedJobIdHardCases(ResourceBackend backend) {
        super(backend);
    }

    /** The job id of every job of the case {@code info} names: the same at every run of it. */
    static JobID fixedJobId(TestInfo info) {
        String name = info.getTestMethod().map(m -> m.getName()).orElse("?") + "/" + info.getDisplayName();
        ByteBuffer bytes = ByteBuffer.allocate(16);
        UUID uuid = UUID.nameUUIDFromBytes(("eosink hard case " + name).getBytes(StandardCharsets.UTF_8));
        bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return new JobID(bytes.array());
    }

    @BeforeEach
    void submitUnderOneJobId(@InjectMiniCluster MiniCluster cluster, TestInfo info) {
        DimensionEnvironment.install(cluster, SLOTS, RunDimension.FIXED_JOB_ID, fixedJobId(info));
    }

    @AfterEach
    void submitPlainAgain() {
        DimensionEnvironment.uninstall();
    }

    @ParameterizedTest(name = "stateful operator chained to the sink: {0}")
    @ValueSource(booleans = {false, true})
    void aSinkRestoredWithoutItsStateNeverRollsBackTheSavepointsTransactions(
            boolean statefulChain, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().aSinkRestoredWithoutItsStateNeverRollsBackTheSavepointsTransactions(statefulChain, client, dir);
    }

    @Test
    void restoreASavepointAfterARunFromAnOlderOneDied(@InjectClusterClient ClusterClient<?> client, @TempDir Path dir)
            throws Exception {
        cases().restoreASavepointAfterARunFromAnOlderOneDied(client, dir);
    }

    @Test
    void cancelRollsBackOnlyTheOpenTransactionAndTheRetainedCheckpointResumes(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().cancelRollsBackOnlyTheOpenTransactionAndTheRetainedCheckpointResumes(client, dir);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"4, 3"})
    void rescaleFromSavepointWithPreparedTransactions(
            int from, int to, @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().rescaleFromSavepointWithPreparedTransactions(from, to, client, dir);
    }

    @Test
    void aSubtaskNewToTheRestoredSavepointRollsBackWhatAnEarlierRestoreOfItPrepared(
            @InjectClusterClient ClusterClient<?> client, @TempDir Path dir) throws Exception {
        cases().aSubtaskNewToTheRestoredSavepointRollsBackWhatAnEarlierRestoreOfItPrepared(true, client, dir);
    }

    @Test
    void twoRunsOfOneJobNeverReuseATransactionName() throws Exception {
        cases().twoRunsOfOneJobNeverReuseATransactionName();
    }

    @Test
    void freshStartRollsBackOwnLeftoversOnly() throws Exception {
        cases().freshStartRollsBackOwnLeftoversOnly();
    }

    @Override
    public String toString() {
        return super.toString() + ", " + RunDimension.FIXED_JOB_ID;
    }
}
