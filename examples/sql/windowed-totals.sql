-- Windowed order totals, exactly once into PostgreSQL: the demo's job in Flink SQL.
--
-- Placeholders, to replace before the script runs (Flink's SQL client does not): ${url} (a JDBC URL,
-- jdbc:postgresql://host:5432/db), ${username} and ${password} (the sink's role, flink_sink of the
-- repository's sql/02-sink-role.sql). The table: window_totals of postgres-tables.sql.
-- Run it with the connector jar: sql-client.sh -j eosink-sql-connector-<version>.jar -f windowed-totals.sql
--
-- Orders -> 10 s tumbling event-time windows per customer -> count and sum -> window_totals, one row per
-- customer and window, as the DataStream demo writes them (./demo). ./demo --sql runs this very script,
-- with the demo's replayable generator in place of the table orders and failures injected; its verdict
-- compares the table with what the generator produced.

-- The sink commits when a checkpoint completes: without checkpointing it refuses the job.
SET 'execution.checkpointing.interval' = '1 s';
SET 'table.local-time-zone' = 'UTC';

-- 20,000 orders, bounded, so that the job finishes: a sequence of order ids at 5,000 a second, each
-- 5 ms of event time after the previous one from 2026-01-01T00:00:00Z, as in the demo's generator
-- (whose customers and amounts are its own function of the id, not datagen's random ones).
CREATE TEMPORARY TABLE orders (
    order_id     BIGINT NOT NULL,
    customer     INT NOT NULL,
    amount_cents BIGINT NOT NULL,
    event_time   AS TO_TIMESTAMP_LTZ(1767225600000 + order_id * 5, 3),
    WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND
) WITH (
    'connector' = 'datagen',
    'rows-per-second' = '5000',
    'fields.order_id.kind' = 'sequence',
    'fields.order_id.start' = '0',
    'fields.order_id.end' = '19999',
    'fields.customer.min' = '0',
    'fields.customer.max' = '99',
    'fields.amount_cents.min' = '100',
    'fields.amount_cents.max' = '10099'
);

-- No primary key: the sink appends. A window's row is final when the watermark passes its end, so
-- the query only inserts, and every row is written once.
-- [START readme]
CREATE TEMPORARY TABLE window_totals_sink (
    customer INT, window_start TIMESTAMP_LTZ(3), window_end TIMESTAMP_LTZ(3), order_count BIGINT, amount_cents BIGINT
) WITH ('connector' = 'eosink-postgres', 'url' = '${url}', 'username' = '${username}', 'password' = '${password}',
        'table-name' = 'window_totals', 'sink.id' = 'sql-window-totals');

INSERT INTO window_totals_sink
SELECT customer, CAST(window_start AS TIMESTAMP_LTZ(3)), CAST(window_end AS TIMESTAMP_LTZ(3)), COUNT(*), SUM(amount_cents)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '10' SECOND))
GROUP BY customer, window_start, window_end;
-- [END readme]
