-- The PostgreSQL tables of the scripts in this folder. Run as the tables' owner, after
-- sql/01-marker-table.sql and sql/02-sink-role.sql of the repository (the marker table and the sink's
-- role, flink_sink); the scripts then run as that role.

-- windowed-totals.sql (and ./demo --sql): one row per customer and 10 s event-time window, the same
-- table as the DataStream demo's (sql/04-example-tables.sql).
CREATE TABLE IF NOT EXISTS window_totals (
    customer     integer     NOT NULL,
    window_start timestamptz NOT NULL,
    window_end   timestamptz NOT NULL,
    order_count  bigint      NOT NULL,
    amount_cents bigint      NOT NULL
);

-- customer-totals.sql: one row per customer, upserted by its key. An upsert needs a unique index on
-- exactly the columns of the Flink table's PRIMARY KEY.
CREATE TABLE IF NOT EXISTS customer_totals (
    customer     integer PRIMARY KEY,
    order_count  bigint  NOT NULL,
    amount_cents bigint  NOT NULL
);

-- INSERT: appends; INSERT, UPDATE, DELETE: upserts and deletes by key; SELECT: to look at the results.
GRANT INSERT, SELECT ON window_totals TO flink_sink;
GRANT INSERT, UPDATE, DELETE, SELECT ON customer_totals TO flink_sink;
