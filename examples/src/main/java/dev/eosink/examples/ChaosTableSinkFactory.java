/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.sql.PostgresDynamicTableSinkFactory;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;

import java.util.Set;

/**
 * {@code 'connector' = 'eosink-postgres-chaos'}: the table of {@code 'eosink-postgres'}, with the same
 * options and the same sink, plus what the DataStream demo puts around its sink: {@link Chaos}'s
 * lifecycle hook in the sink, and a {@link Chaos.ChaosMap} chained in front of it, which counts completed
 * checkpoints and declines one when armed. Nothing strikes unless {@link Chaos#start} armed a fault.
 * For {@code ./demo --sql} in a local MiniCluster only.
 *
 * <p>The connector builds its sink inside and hands it to the {@code sinkTo} of the stream it gets;
 * this factory hands it a stream whose {@code sinkTo} adds the hook. A connector that wrote otherwise
 * (a sink of another kind, or through another stream) would leave the sink's faults out: that is
 * refused when the job is translated, not run without them.
 */
public final class ChaosTableSinkFactory implements DynamicTableSinkFactory {

    public static final String IDENTIFIER = "eosink-postgres-chaos";

    private final PostgresDynamicTableSinkFactory connector = new PostgresDynamicTableSinkFactory();

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return connector.requiredOptions();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return connector.optionalOptions();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return new ChaosTableSink(connector.createDynamicTableSink(context));
    }

    /** The connector's table sink, its input passed through the checkpoint listener into a hooking stream. */
    private static final class ChaosTableSink implements DynamicTableSink {

        private final DynamicTableSink table;

        ChaosTableSink(DynamicTableSink table) {
            this.table = table;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return table.getChangelogMode(requestedMode);
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            SinkRuntimeProvider provider = table.getSinkRuntimeProvider(context);
            if (!(provider instanceof DataStreamSinkProvider)) {
                throw new IllegalStateException(
                        "the connector's sink is a " + provider.getClass().getName()
                                + ", not a DataStreamSinkProvider: the demo cannot put Chaos around it");
            }
            DataStreamSinkProvider written = (DataStreamSinkProvider) provider;
            return new DataStreamSinkProvider() {
                @Override
                public DataStreamSink<?> consumeDataStream(ProviderContext names, DataStream<RowData> input) {
                    DataStream<RowData> listened = input.map(new Chaos.ChaosMap<>(false), input.getType())
                            .name("checkpoint listener + declines");
                    HookingStream hooking = new HookingStream(listened);
                    DataStreamSink<?> sink = written.consumeDataStream(names, hooking);
                    if (!hooking.hooked) {
                        throw new IllegalStateException("the connector did not write through the stream it was "
                                + "given: the demo cannot put Chaos's lifecycle hook into its sink");
                    }
                    return sink;
                }
            };
        }

        @Override
        public DynamicTableSink copy() {
            return new ChaosTableSink(table.copy());
        }

        @Override
        public String asSummaryString() {
            return table.asSummaryString() + " + chaos";
        }
    }

    /** A stream whose {@code sinkTo} of an exactly-once sink writes through the same sink with Chaos's hook. */
    private static final class HookingStream extends DataStream<RowData> {

        boolean hooked;

        HookingStream(DataStream<RowData> stream) {
            super(stream.getExecutionEnvironment(), stream.getTransformation());
        }

        @Override
        public DataStreamSink<RowData> sinkTo(Sink<RowData> sink) {
            if (!(sink instanceof ExactlyOnceSink)) {
                throw new IllegalStateException(
                        "the connector's sink is a " + sink.getClass().getName()
                                + ", not an ExactlyOnceSink: the demo cannot put Chaos's lifecycle hook into it");
            }
            hooked = true;
            return super.sinkTo(((ExactlyOnceSink<RowData>) sink).withLifecycleHook(Chaos.sinkHook()));
        }
    }
}
