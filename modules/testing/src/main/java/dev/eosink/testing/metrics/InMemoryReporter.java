/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.metrics;

import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

/**
 * A metric reporter that keeps every metric a MiniCluster in this JVM registers, in a static list, so
 * that a test reads the sink's metrics as a real reporter (Prometheus, JMX) would see them: by name, in
 * the sink operators' groups, per subtask and attempt. Metric objects outlive their task: a finished or
 * failed task's counters keep their last values, and a restarted attempt registers new objects under
 * the same identifier, each kept as a {@link Registration} of its own, in order.
 *
 * <p>Use: {@link #configure} the MiniCluster's configuration (Flink 1.20 and 2.x read reporters by
 * {@code metrics.reporter.<name>.factory.class}; the factory is found through {@code META-INF/services}),
 * {@link #clear} before each test, then {@link #find}.
 */
public final class InMemoryReporter implements MetricReporter {

    /** The reporter's name in the configuration. */
    public static final String NAME = "eosink_in_memory";

    private static final ConcurrentLinkedQueue<Registration> REGISTERED = new ConcurrentLinkedQueue<>();

    /** A reporter, as {@link Factory} makes one for each MiniCluster; every one keeps into the same static list. */
    public InMemoryReporter() {}

    /** One metric as registered by one task attempt. */
    public static final class Registration {
        private final String name;
        private final String identifier;
        private final Map<String, String> variables;
        private final Metric metric;

        Registration(String name, String identifier, Map<String, String> variables, Metric metric) {
            this.name = name;
            this.identifier = identifier;
            this.variables = variables;
            this.metric = metric;
        }

        /** The metric's own name, e.g. {@code preparedTransactions}. */
        public String name() {
            return name;
        }

        /** The full identifier, e.g. {@code localhost.taskmanager.<id>.<job>.<operator>.0.eosink.preparedTransactions}. */
        public String identifier() {
            return identifier;
        }

        /** The job's name; empty for a metric outside a job. */
        public String jobName() {
            return variables.getOrDefault("<job_name>", "");
        }

        /** The operator's name; empty for a metric outside an operator. */
        public String operatorName() {
            return variables.getOrDefault("<operator_name>", "");
        }

        /** The subtask's index; -1 for a metric outside a task. */
        public int subtask() {
            return Integer.parseInt(variables.getOrDefault("<subtask_index>", "-1"));
        }

        /** The attempt of the subtask's task; -1 for a metric outside a task. */
        public int attempt() {
            return Integer.parseInt(variables.getOrDefault("<task_attempt_num>", "-1"));
        }

        /** The metric as Flink registered it: a gauge, a counter, a meter or a histogram. */
        public Metric metric() {
            return metric;
        }

        /** A counter's count, or a histogram's number of samples. */
        public long count() {
            if (metric instanceof Counter) {
                return ((Counter) metric).getCount();
            }
            if (metric instanceof Histogram) {
                return ((Histogram) metric).getCount();
            }
            throw new IllegalStateException(identifier + " is neither a counter nor a histogram: " + metric);
        }

        /** A gauge's value now, as a long. */
        public long gaugeValue() {
            if (!(metric instanceof Gauge)) {
                throw new IllegalStateException(identifier + " is not a gauge: " + metric);
            }
            return ((Number) ((Gauge<?>) metric).getValue()).longValue();
        }

        @Override
        public String toString() {
            return identifier + " (attempt " + attempt() + ")";
        }
    }

    /** Adds this reporter to a MiniCluster's configuration. */
    public static Configuration configure(Configuration conf) {
        conf.set(
                ConfigOptions.key("metrics.reporter." + NAME + ".factory.class")
                        .stringType()
                        .noDefaultValue(),
                Factory.class.getName());
        return conf;
    }

    /** Forgets everything registered so far: call before each test. */
    public static void clear() {
        REGISTERED.clear();
    }

    /**
     * The registrations of metric {@code name} of job {@code jobName} in operators whose name contains
     * {@code operator} ("Writer", "Committer"), in the sub-group {@code group} (null: the operator's own
     * group), in the order they were registered.
     */
    public static List<Registration> find(String jobName, String operator, String group, String name) {
        String suffix = "." + (group == null ? "" : group + ".") + name;
        return REGISTERED.stream()
                .filter(r -> r.name.equals(name)
                        && r.identifier.endsWith(suffix)
                        && r.jobName().equals(jobName)
                        && r.operatorName().contains(operator))
                .collect(Collectors.toList());
    }

    /** Of {@link #find}'s registrations, the last one of each subtask: the metrics of its latest attempt. */
    public static List<Registration> latest(String jobName, String operator, String group, String name) {
        Map<Integer, Registration> last = new java.util.TreeMap<>();
        for (Registration r : find(jobName, operator, group, name)) {
            last.put(r.subtask(), r);
        }
        return new ArrayList<>(last.values());
    }

    /** Everything registered so far, for messages. */
    public static List<String> identifiers() {
        return REGISTERED.stream().map(r -> r.identifier).collect(Collectors.toList());
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        REGISTERED.add(new Registration(
                metricName, group.getMetricIdentifier(metricName), Map.copyOf(group.getAllVariables()), metric));
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Kept: a test reads a finished task's metrics after the job ended.
    }

    /** Found by Flink through {@code META-INF/services}; named in {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        /** The factory Flink finds through {@code META-INF/services}. */
        public Factory() {}

        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new InMemoryReporter();
        }
    }
}
