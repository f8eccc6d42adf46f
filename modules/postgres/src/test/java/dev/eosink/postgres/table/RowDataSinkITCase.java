/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.core.SinkException;
import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.core.spi.SubtaskContext.JobRun;
import dev.eosink.core.spi.WriterSession;
import dev.eosink.postgres.ExactlyOnceTestBase;
import dev.eosink.postgres.PostgresSinkBuilder;
import dev.eosink.testing.faults.FaultInjectingDatabase;
import dev.eosink.testing.faults.Faults;
import dev.eosink.testing.records.CheckpointPacedIds;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The RowData sink at work: a table that does not fit is refused before anything is written, with
 * every column in one message; a refused record is shown as the row it is, in the error and in the
 * dead-letter table; and a DataStream of RowData, whose records Flink reuses, is written exactly once
 * through a failover, by COPY and by upserts.
 */
class RowDataSinkITCase extends ExactlyOnceTestBase {

    private static final Logger LOG = LoggerFactory.getLogger(RowDataSinkITCase.class);

    private static final RowType ID_PAYLOAD = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "payload"});

    private PostgresSinkBuilder<RowData> builder(RowType type, String sinkId, String table) {
        return PostgresRowDataSink.builder(type)
                .jdbcUrl(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .sinkId(sinkId)
                .table(table)
                .batchSize(100);
    }

    private SubtaskContext context() {
        return new SubtaskContext(sinkId, 0, 1, 0, new JobRun("rowdata", OptionalLong.empty()));
    }

    @Test
    void aTableThatDoesNotFitIsRefusedBeforeAnythingIsWritten() throws Exception {
        db.execute("DROP TABLE " + table + "; CREATE TABLE " + table
                + " (id bigint PRIMARY KEY, qty smallint, day date, code varchar(3))");
        RowType type = RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new IntType(),
                    new DateType(),
                    VarCharType.STRING_TYPE,
                    VarCharType.STRING_TYPE
                },
                new String[] {"id", "qty", "day", "note", "code"});
        ExactlyOnceSink<RowData> sink = builder(type, sinkId, table).build();

        SinkException refused =
                catchThrowableOfType(SinkException.class, () -> sink.database().openWriter(context()));
        LOG.info("the writer refused to start: {}", refused.getMessage());
        assertThat(refused)
                .hasMessage("sink '" + sinkId + "' subtask 0/1 (attempt 0): the records do not fit table \""
                        + table
                        + "\": column \"qty\": Flink type INT cannot be written into smallint (an INT goes into integer, "
                        + "bigint or numeric). Remedy: declare the column as SMALLINT in the Flink table, or ALTER the column to "
                        + "integer; column \"note\" (Flink type STRING) is missing from the table. Remedy: add it (ALTER TABLE ... "
                        + "ADD COLUMN \"note\" text), or leave it out of the Flink table. Nothing was written.");
        assertThat(rows()).isZero();
        assertThat(preparedLeft()).isEmpty();
        assertThat(db.count(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?",
                        "eosink/" + sinkId + "/%"))
                .as("sessions left open")
                .isZero();
    }

    @Test
    void aRefusedRecordIsShownAsItsRow() throws Exception {
        db.execute("DROP TABLE " + table + "; CREATE TABLE " + table
                + " (id bigint NOT NULL, payload varchar(5) NOT NULL" + " CHECK (payload <> 'bad'))");
        // COPY: the encoder refuses the value too long before anything of the row is sent.
        ExactlyOnceSink<RowData> copy = builder(ID_PAYLOAD, sinkId, table).build();
        try (WriterSession<RowData> writer = copy.database().openWriter(context())) {
            writer.epoch().write(GenericRowData.of(1L, StringData.fromString("fine")), 0);
            SinkException tooLong = catchThrowableOfType(
                    SinkException.class,
                    () -> writer.epoch().write(GenericRowData.of(2L, StringData.fromString("far too long")), 1));
            assertThat(tooLong)
                    .hasMessageStartingWith("writing into table \"" + table + "\" failed at record #1 of the "
                            + "epoch (counting from 0) [+I[2, far too long]]: column \"payload\": value too long for type "
                            + "character varying(5) (12 characters: \"far too long\"). The sink refused the record before sending "
                            + "it, as PostgreSQL would (SQLSTATE 22001)");
            writer.epoch().abortOpen();
        }
        // Batches with a dead-letter table: the server refuses, the row is kept with its error.
        String dead = table + "_dead";
        ExactlyOnceSink<RowData> batches =
                builder(ID_PAYLOAD, sinkId, table).deadLetterTable(null, dead).build();
        try (WriterSession<RowData> writer = batches.database().openWriter(context())) {
            writer.recovery().claim(0, 10_000);
            GenericRowData reused = new GenericRowData(RowKind.INSERT, 2);
            String[] payloads = {"a", "bad", "c", null, "e"};
            for (int i = 0; i < payloads.length; i++) {
                reused.setField(0, (long) i);
                reused.setField(1, payloads[i] == null ? null : StringData.fromString(payloads[i]));
                writer.epoch().write(reused, i);
            }
            TransactionId id = new TransactionId(sinkId, 0, 1, "dead0001");
            writer.epoch().prepare(id, payloads.length);
            try (var committer = batches.database().openCommitter(context())) {
                committer.commit(id);
            }
        }
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE payload IN ('a', 'c', 'e')"))
                .isEqualTo(3);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE record = '+I[1, bad]' AND sqlstate = '23514'"))
                .isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM " + dead + " WHERE record = '+I[3, null]' AND sqlstate = '23502'"))
                .isEqualTo(1);
    }

    /**
     * Ids 0..n-1 as RowData, made by a map that reuses one record (object reuse on, so the sinks get
     * that very object), into two sinks: inserts by COPY into the test's table, and upserts by key
     * into a second table; a failover after a PREPARE. Both tables end with every id once, each with
     * its own payload.
     */
    @Test
    void aStreamOfReusedRowsIsWrittenExactlyOnceThroughAFailover() throws Exception {
        String upserts = table + "_kv";
        db.execute("CREATE TABLE " + upserts + " (id bigint PRIMARY KEY, payload text NOT NULL)");
        String upsertSinkId = sinkId + "-kv";
        Faults.reset(upsertSinkId);
        Faults.arm(sinkId, Faults.Point.AFTER_PREPARE, 3);
        int n = 4_000;
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        StreamExecutionEnvironment env = env(2, 200, conf);
        // At least four epochs with records per subtask: the third PREPARE comes.
        DataStream<RowData> rows =
                CheckpointPacedIds.ids(env, n, 500).map(new ReusedRow()).returns(TypeInformation.of(RowData.class));
        rows.sinkTo(
                FaultInjectingDatabase.wrap(builder(ID_PAYLOAD, sinkId, table).build()));
        // Not keyed: each id comes once, from one subtask, and the records never leave the chain (GenericTypeInfo
        // would serialize them with Kryo, which needs --add-opens on Java 17 with Flink 1.20).
        rows.sinkTo(builder(ID_PAYLOAD, upsertSinkId, upserts).upsert("id").build());
        try {
            env.execute("rowdata exactly once");
        } finally {
            db.rollbackPrepared(TransactionId.sinkPrefix(upsertSinkId));
        }

        assertThat(Faults.fired(sinkId, Faults.Point.AFTER_PREPARE))
                .as("failovers")
                .isEqualTo(1);
        assertExactlyOnce(n);
        assertThat(db.count("SELECT count(*) FROM " + table + " WHERE payload <> 'row-' || id"))
                .as("wrong payloads")
                .isZero();
        assertThat(db.preparedGids(TransactionId.sinkPrefix(upsertSinkId))).isEmpty();
        assertThat(db.count("SELECT count(*) FROM " + upserts)).isEqualTo(n);
        assertThat(db.count("SELECT count(DISTINCT id) FROM " + upserts + " WHERE id >= 0 AND id < ?", n))
                .isEqualTo(n);
        assertThat(db.count("SELECT count(*) FROM " + upserts + " WHERE payload <> 'row-' || id"))
                .as("wrong payloads")
                .isZero();
    }

    /** One record, rewritten for every id, as Flink's own operators reuse their output. */
    private static final class ReusedRow implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private transient GenericRowData row;

        @Override
        public RowData map(Long id) {
            if (row == null) {
                row = new GenericRowData(2);
            }
            row.setField(0, id);
            row.setField(1, StringData.fromString("row-" + id));
            return row;
        }
    }
}
