/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.core.protocol;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

import java.util.LinkedHashMap;
import java.util.Map;

/** A metric group that keeps what is registered in it, by "group.name": unit tests read the metrics. */
final class RecordingMetricGroup extends UnregisteredMetricsGroup {

    private final String prefix;
    private final Map<String, Metric> metrics;

    RecordingMetricGroup() {
        this("", new LinkedHashMap<>());
    }

    private RecordingMetricGroup(String prefix, Map<String, Metric> metrics) {
        this.prefix = prefix;
        this.metrics = metrics;
    }

    @Override
    public MetricGroup addGroup(String name) {
        return new RecordingMetricGroup(prefix + name + ".", metrics);
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
        metrics.put(prefix + name, counter);
        return counter;
    }

    @Override
    public Counter counter(String name) {
        return counter(name, new org.apache.flink.metrics.SimpleCounter());
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        metrics.put(prefix + name, gauge);
        return gauge;
    }

    @Override
    public <H extends Histogram> H histogram(String name, H histogram) {
        metrics.put(prefix + name, histogram);
        return histogram;
    }

    long count(String name) {
        Metric m = metrics.get(name);
        if (m instanceof Counter) {
            return ((Counter) m).getCount();
        }
        if (m instanceof Histogram) {
            return ((Histogram) m).getCount();
        }
        throw new AssertionError("no counter or histogram " + name + " in " + metrics.keySet());
    }

    Object value(String name) {
        Metric m = metrics.get(name);
        if (!(m instanceof Gauge)) {
            throw new AssertionError("no gauge " + name + " in " + metrics.keySet());
        }
        return ((Gauge<?>) m).getValue();
    }

    Histogram histogram(String name) {
        return (Histogram) metrics.get(name);
    }

    java.util.Set<String> names() {
        return metrics.keySet();
    }
}
