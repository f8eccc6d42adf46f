-- The example jobs' tables (examples/: ./demo and eosink-examples-cluster.jar), for running the
-- examples against your PostgreSQL as the least-privileged role of 02-sink-role.sql. Run as the
-- tables' owner (an administrator), after 01-marker-table.sql and 02-sink-role.sql. The same DDL is
-- what the example client runs itself when the table is missing and its role may create it.
-- ClusterClientITCase runs this very script (and 01, 02) before it drives the cluster example.
-- Run with psql; its psql variables name the tables' schema and the sink's role, as in 02-sink-role.sql:
--   psql -v schema=shop -v role=orders_sink -f sql/04-example-tables.sql
\if :{?schema}
\else
\set schema public
\endif
\if :{?role}
\else
\set role flink_sink
\endif

-- --job windows (the default): one row per customer and 10 s event-time window.
CREATE TABLE :"schema".window_totals (
    customer     integer     NOT NULL,
    window_start timestamptz NOT NULL,
    window_end   timestamptz NOT NULL,
    order_count  bigint      NOT NULL,
    amount_cents bigint      NOT NULL
);

-- --job events: one row per order.
CREATE TABLE :"schema".order_events (
    order_id     bigint      NOT NULL,
    customer     integer     NOT NULL,
    amount_cents bigint      NOT NULL,
    event_time   timestamptz NOT NULL
);

-- INSERT: the sink writes. SELECT: the client's progress and verdict read the table. DELETE: only
-- for the client's --reset, which deletes a finished run's rows (leave it out, and start over by
-- having the owner empty the table instead).
GRANT INSERT, SELECT, DELETE ON :"schema".window_totals, :"schema".order_events TO :"role";
