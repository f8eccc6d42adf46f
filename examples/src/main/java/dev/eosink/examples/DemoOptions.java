/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.examples;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The demo's command line: {@code [run|verify] [--option value]... [-Dflink.key=value]...}. */
final class DemoOptions {

    /** {@code run}, {@code verify}, or {@code help} (print the usage, run nothing). */
    String mode = "run";

    String job = "windows";
    /** The windowed totals in Flink SQL ({@link SqlDemo}) rather than the DataStream API. */
    boolean sql;
    /** Where the orders come from: {@code generator} (in the job) or {@code kafka} (a topic: {@link KafkaDemo}). */
    String source = "generator";
    /** The Kafka broker of {@code --source kafka}; null: the one of EOSINK_KAFKA_BOOTSTRAP, or an embedded one. */
    String kafkaBootstrap;

    String postgresUrl;
    String user;
    String password = System.getenv("EOSINK_DEMO_PASSWORD");
    long events = 300_000;
    /** Orders per second: the generator's pace unless --per-checkpoint sets another, and Kafka's. */
    double rate = 10_000;
    /** How the generator paces its orders: {@link #rate} a second, or --per-checkpoint. */
    Pace pace;

    int parallelism = 2;
    Boolean chaos; // default: on for local runs, off on a cluster
    int faults = 6;
    long chaosMinMillis = 3_000;
    long chaosMaxMillis = 8_000;
    long seed = System.nanoTime();
    String table;
    String sinkId;
    /** Where checkpoints go; null: the cluster's configured place, or locally {@link #localCheckpointDir}. */
    Path checkpointDir;

    boolean resume;
    boolean reset;
    /** Port (or range, {@code 9249-9259}) of Flink's Prometheus reporter in the local MiniCluster; null: none. */
    String prometheusPort;

    /** {@code --cdc-vs-debezium}: rounds, each replicating the same topics with each sink ({@link CdcVsDebezium}). */
    int rounds = 3;
    /** {@code --cdc-vs-debezium}: the JDBC sink connector's tasks.max. */
    int peerTasks = 1;
    /** {@code --cdc-vs-debezium}: the JDBC sink connector's batch.size; null: its default. */
    Integer peerBatchSize;
    /** {@code --cdc-vs-debezium}: the peer's tables keep their foreign keys (its task fails: docs/benchmarks.md). */
    boolean peerForeignKeys;
    /** {@code --cdc-vs-debezium}: the results file (markdown); null: the default ({@link CdcVsDebezium}). */
    Path results;

    final Map<String, String> flinkConf = new LinkedHashMap<>();

    static final String USAGE = "usage: demo [run|verify] [options] [-D<flink.key>=<value>...]\n"
            + "  run                 run the job, then verify the table (default)\n"
            + "  verify              only verify an existing table against the generator settings\n"
            + "  --job windows|events  windowed totals per customer (default) or one row per order\n"
            + "  --sql               the windowed totals in Flink SQL: examples/sql/windowed-totals.sql through\n"
            + "                      the SQL connector (local runs, PostgreSQL; table sql_window_totals)\n"
            + "  --source kafka      Kafka in: the orders go through a topic (embedded broker, or\n"
            + "                      --kafka-bootstrap host:port), with a TaskManager, PostgreSQL and the broker\n"
            + "                      killed on top of the failures below; local runs, PostgreSQL (docs/demo.md)\n"
            + "  --cdc               replication: source transactions over related tables, captured by Debezium into\n"
            + "                      Kafka, replicated whole into PostgreSQL (schema --table, default replica)\n"
            + "                      while a reader checks every commit; --events source transactions (default\n"
            + "                      2000), --rate change events a second (default 2000) (docs/demo.md)\n"
            + "  --cdc-vs-debezium   the replication of --cdc beside Debezium's JDBC sink connector (Kafka Connect):\n"
            + "                      the same topics, captured once, replicated by each into fresh schemas, in\n"
            + "                      alternating order; throughput, the reader's verdict and the final state of\n"
            + "                      each; --events source transactions (default 10000), --rounds R (default 3),\n"
            + "                      --peer-tasks N (tasks.max, default 1), --peer-batch-size N (default: the\n"
            + "                      connector's), --peer-foreign-keys (the connector's tables keep their\n"
            + "                      foreign keys: its task fails), --results FILE (default benchmarks/results/\n"
            + "                      replication-vs-debezium-jdbc.md when run from the repository)\n"
            + "                      (docs/benchmarks.md)\n"
            + "  --postgres-url URL  jdbc:postgresql://host:port/db (default: start an embedded PostgreSQL)\n"
            + "  --mariadb-url URL   jdbc:mariadb://host:port/db: write to MariaDB through the XA sink instead\n"
            + "  --user U            database user (password: env EOSINK_DEMO_PASSWORD)\n"
            + "  --events N          orders to generate (default 300000)\n"
            + "  --rate R            orders per second, all subtasks together (default 10000)\n"
            + "  --per-checkpoint N  instead of --rate: N orders per completed checkpoint, all subtasks\n"
            + "                      together, so that the job lasts events/N checkpoints on any machine\n"
            + "  --parallelism P     (default 2)\n"
            + "  --chaos on|off      inject failures at random moments (default: on locally)\n"
            + "  --faults K          how many failures to inject (default 6)\n"
            + "  --seed S            seed of the failure schedule\n"
            + "  --table T, --sink-id ID   (default window_totals/demo-windows, order_events/demo-events)\n"
            + "  --checkpoint-dir D  retained checkpoints (default: the cluster's configured directory;\n"
            + "                      locally $TMPDIR/eosink-demo/<sink id>/checkpoints)\n"
            + "  --resume            resume from the latest retained checkpoint in the checkpoint directory\n"
            + "                      (on a cluster: flink run -s <savepoint> ... instead)\n"
            + "  --reset             start over: roll back the sink id's prepared transactions and delete the\n"
            + "                      table's rows (a fresh run refuses a table with rows otherwise)\n"
            + "  --prometheus-port N expose the local MiniCluster's metrics (the sink's included) for Prometheus\n"
            + "                      at http://localhost:N/metrics (N may be a range, 9249-9259; on a cluster,\n"
            + "                      the cluster's own reporter configuration applies: docs/monitoring.md)\n"
            + "  -Dkey=value         any Flink option, e.g. -Dexecution.checkpointing.interval=500ms\n"
            + "                      or -Dexecution.state-recovery.path=file:///.../chk-42";

    static DemoOptions parse(String[] args) {
        DemoOptions o = new DemoOptions();
        Integer perCheckpoint = null;
        boolean eventsGiven = false;
        boolean rateGiven = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("-D") && a.contains("=")) {
                String kv = a.substring(2);
                o.flinkConf.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                continue;
            }
            switch (a) {
                case "run":
                case "verify":
                    o.mode = a;
                    break;
                case "--job":
                    o.job = value(args, ++i, a);
                    if (!o.job.equals("windows") && !o.job.equals("events")) {
                        throw new IllegalArgumentException("--job is windows or events, not " + o.job);
                    }
                    break;
                case "--sql":
                    o.sql = true;
                    break;
                case "--source":
                    o.source = value(args, ++i, a);
                    if (!o.source.equals("generator") && !o.source.equals("kafka")) {
                        throw new IllegalArgumentException("--source is generator or kafka, not " + o.source);
                    }
                    break;
                case "--kafka-bootstrap":
                    o.kafkaBootstrap = value(args, ++i, a);
                    break;
                case "--postgres-url":
                    o.postgresUrl = value(args, ++i, a);
                    break;
                case "--mariadb-url":
                    // The same option as --postgres-url underneath: the URL's scheme picks the sink.
                    o.postgresUrl = value(args, ++i, a);
                    if (!o.postgresUrl.startsWith("jdbc:mariadb:")) {
                        throw new IllegalArgumentException("--mariadb-url takes jdbc:mariadb://host:port/database");
                    }
                    break;
                case "--user":
                    o.user = value(args, ++i, a);
                    break;
                case "--events":
                    o.events = Long.parseLong(value(args, ++i, a).replace("_", ""));
                    eventsGiven = true;
                    break;
                case "--rate":
                    o.rate = Double.parseDouble(value(args, ++i, a).replace("_", ""));
                    rateGiven = true;
                    break;
                case "--cdc":
                    o.source = "cdc";
                    break;
                case "--cdc-vs-debezium":
                    o.source = "cdc-vs-debezium";
                    break;
                case "--rounds":
                    o.rounds = Integer.parseInt(value(args, ++i, a));
                    break;
                case "--peer-tasks":
                    o.peerTasks = Integer.parseInt(value(args, ++i, a));
                    break;
                case "--peer-batch-size":
                    o.peerBatchSize = Integer.parseInt(value(args, ++i, a).replace("_", ""));
                    break;
                case "--peer-foreign-keys":
                    o.peerForeignKeys = true;
                    break;
                case "--results":
                    o.results = Path.of(value(args, ++i, a));
                    break;
                case "--per-checkpoint":
                    perCheckpoint = Integer.parseInt(value(args, ++i, a).replace("_", ""));
                    break;
                case "--parallelism":
                    o.parallelism = Integer.parseInt(value(args, ++i, a));
                    break;
                case "--chaos":
                    o.chaos = "on".equals(value(args, ++i, a)) || "true".equals(args[i]);
                    break;
                case "--faults":
                    o.faults = Integer.parseInt(value(args, ++i, a));
                    break;
                case "--seed":
                    o.seed = Long.parseLong(value(args, ++i, a));
                    break;
                case "--table":
                    o.table = value(args, ++i, a);
                    break;
                case "--sink-id":
                    o.sinkId = value(args, ++i, a);
                    break;
                case "--checkpoint-dir":
                    o.checkpointDir = Path.of(value(args, ++i, a));
                    break;
                case "--resume":
                    o.resume = true;
                    break;
                case "--reset":
                    o.reset = true;
                    break;
                case "--prometheus-port":
                    o.prometheusPort = value(args, ++i, a);
                    if (!o.prometheusPort.matches("\\d{1,5}(-\\d{1,5})?")) {
                        throw new IllegalArgumentException(
                                "--prometheus-port takes a port or a range of ports (9249-9259), not "
                                        + o.prometheusPort);
                    }
                    break;
                case "-h":
                case "--help":
                    o.mode = "help";
                    return o;
                default:
                    throw new IllegalArgumentException("unknown argument: " + a);
            }
        }
        if (o.sql
                && (o.job.equals("events")
                        || (o.postgresUrl != null && !o.postgresUrl.startsWith("jdbc:postgresql:")))) {
            throw new IllegalArgumentException("--sql runs the windows job into PostgreSQL");
        }
        if (o.source.equals("cdc-vs-debezium")) {
            return cdcVsDebezium(o, eventsGiven, rateGiven, perCheckpoint);
        }
        if (o.rounds != 3 || o.peerTasks != 1 || o.peerBatchSize != null || o.peerForeignKeys || o.results != null) {
            throw new IllegalArgumentException("--rounds, --peer-tasks, --peer-batch-size, --peer-foreign-keys and "
                    + "--results go with --cdc-vs-debezium");
        }
        if (o.source.equals("cdc")) {
            return cdc(o, eventsGiven, rateGiven, perCheckpoint);
        }
        boolean kafka = o.source.equals("kafka");
        if (kafka
                && (o.sql
                        || o.job.equals("events")
                        || o.resume
                        || o.mode.equals("verify")
                        || (o.postgresUrl != null && !o.postgresUrl.startsWith("jdbc:postgresql:")))) {
            throw new IllegalArgumentException(
                    "--source kafka runs the windows job into PostgreSQL (not with --sql, --resume "
                            + "or verify: its verdict reads the run's own topic)");
        }
        if (kafka && perCheckpoint != null) {
            throw new IllegalArgumentException("--per-checkpoint paces the generator; --source kafka takes --rate");
        }
        if (o.kafkaBootstrap != null && !kafka) {
            throw new IllegalArgumentException("--kafka-bootstrap goes with --source kafka");
        }
        if (o.table == null) {
            o.table = kafka
                    ? "kafka_window_totals"
                    : o.sql ? "sql_window_totals" : o.job.equals("events") ? "order_events" : "window_totals";
        }
        if (o.sinkId == null) {
            o.sinkId = kafka ? "demo-kafka" : o.sql ? "demo-sql" : "demo-" + o.job;
        }
        if (o.events < 1 || o.events > Integer.MAX_VALUE || o.rate <= 0 || o.parallelism < 1) {
            throw new IllegalArgumentException("--events 1.." + Integer.MAX_VALUE + ", --rate > 0, --parallelism >= 1");
        }
        o.pace = perCheckpoint != null ? Pace.perCheckpoint(perCheckpoint, o.parallelism) : Pace.perSecond(o.rate);
        return o;
    }

    /** The options of {@code --cdc} ({@link CdcDemo}): its own defaults, and what it does not take. */
    private static DemoOptions cdc(DemoOptions o, boolean eventsGiven, boolean rateGiven, Integer perCheckpoint) {
        if (o.sql
                || o.job.equals("events")
                || o.resume
                || o.mode.equals("verify")
                || perCheckpoint != null
                || o.postgresUrl != null) {
            throw new IllegalArgumentException("--cdc replicates its own source into an embedded PostgreSQL (not with "
                    + "--sql, --job events, --resume, verify, --per-checkpoint or --postgres-url)");
        }
        if (!eventsGiven) {
            o.events = 2_000; // source transactions
        }
        if (!rateGiven) {
            o.rate = 2_000; // change events a second
        }
        o.table = o.table != null ? o.table : "replica";
        o.sinkId = o.sinkId != null ? o.sinkId : "demo-cdc";
        if (o.events < 1 || o.events > Integer.MAX_VALUE || o.rate <= 0) {
            throw new IllegalArgumentException("--events 1.." + Integer.MAX_VALUE + ", --rate > 0");
        }
        o.pace = Pace.perSecond(o.rate);
        return o;
    }

    /** The options of {@code --cdc-vs-debezium} ({@link CdcVsDebezium}): no chaos, no pace, its own servers. */
    private static DemoOptions cdcVsDebezium(
            DemoOptions o, boolean eventsGiven, boolean rateGiven, Integer perCheckpoint) {
        if (o.sql
                || o.job.equals("events")
                || o.resume
                || o.mode.equals("verify")
                || perCheckpoint != null
                || rateGiven
                || Boolean.TRUE.equals(o.chaos)
                || o.postgresUrl != null
                || o.table != null) {
            throw new IllegalArgumentException("--cdc-vs-debezium replicates its own source into an embedded "
                    + "PostgreSQL, unthrottled and without failures (not with --sql, --job events, --resume, verify, "
                    + "--per-checkpoint, --rate, --chaos on, --postgres-url or --table)");
        }
        if (!eventsGiven) {
            o.events = 10_000; // source transactions
        }
        o.chaos = false;
        o.sinkId = o.sinkId != null ? o.sinkId : "cmp-cdc";
        if (o.events < 1
                || o.events > Integer.MAX_VALUE
                || o.rounds < 1
                || o.peerTasks < 1
                || (o.peerBatchSize != null && o.peerBatchSize < 1)) {
            throw new IllegalArgumentException(
                    "--events 1.." + Integer.MAX_VALUE + ", --rounds >= 1, --peer-tasks >= 1, --peer-batch-size >= 1");
        }
        o.pace = Pace.perSecond(o.rate);
        return o;
    }

    /** Local runs keep their checkpoints per sink id, so that --resume never picks another demo's. */
    static Path localCheckpointDir(String sinkId) {
        return Path.of(System.getProperty("java.io.tmpdir"), "eosink-demo", sinkId, "checkpoints");
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
