-- Order totals per customer, kept up to date in PostgreSQL by upserts and deletes, exactly once.
--
-- Placeholders, to replace before the script runs (Flink's SQL client does not): ${url} (a JDBC URL,
-- jdbc:postgresql://host:5432/db), ${username} and ${password} (the sink's role, flink_sink of the
-- repository's sql/02-sink-role.sql). The table: customer_totals of postgres-tables.sql.
-- Run it with the connector jar: sql-client.sh -j eosink-sql-connector-<version>.jar -f customer-totals.sql
--
-- Orders are revised: each order comes twice, and its revision may name another customer and amount.
-- The totals per customer are a GROUP BY over the latest revision of each order, so a revision
-- retracts the order from its old customer's totals and adds it to its new one's; a customer left
-- without orders is deleted. The sink upserts each changed total by the table's primary key.

SET 'execution.checkpointing.interval' = '1 s';

-- 5,000 orders, each twice: rows 0..4,999 are revision 0 of orders 0..4,999, rows 5,000..9,999
-- revision 1 of the same orders, each with a random customer of 0..99 and amount. Bounded, so that
-- the job finishes.
CREATE TEMPORARY TABLE order_revisions (
    seq          BIGINT NOT NULL,
    customer     INT NOT NULL,
    amount_cents BIGINT NOT NULL,
    order_id     AS seq % 5000,
    revision     AS seq / 5000
) WITH (
    'connector' = 'datagen',
    'rows-per-second' = '5000',
    'fields.seq.kind' = 'sequence',
    'fields.seq.start' = '0',
    'fields.seq.end' = '9999',
    'fields.customer.min' = '0',
    'fields.customer.max' = '99',
    'fields.amount_cents.min' = '100',
    'fields.amount_cents.max' = '10099'
);

-- The latest revision of each order: a Top-1 by revision, whatever order the revisions arrive in.
-- When a later revision arrives, it retracts the earlier one.
CREATE TEMPORARY VIEW latest_orders AS
SELECT order_id, customer, amount_cents
FROM (
    SELECT order_id, customer, amount_cents,
           ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY revision DESC) AS rn
    FROM order_revisions)
WHERE rn = 1;

-- The primary key makes the sink upsert: every change of a customer's totals becomes an upsert of
-- its row, and a customer's last order moving away deletes the row. The database table needs a
-- unique index on exactly these columns (its PRIMARY KEY, in postgres-tables.sql).
CREATE TEMPORARY TABLE customer_totals_sink (
    customer     INT,
    order_count  BIGINT,
    amount_cents BIGINT,
    PRIMARY KEY (customer) NOT ENFORCED
) WITH (
    'connector'  = 'eosink-postgres',
    'url'        = '${url}',
    'username'   = '${username}',
    'password'   = '${password}',
    'table-name' = 'customer_totals',
    'sink.id'    = 'sql-customer-totals'
);

INSERT INTO customer_totals_sink
SELECT customer, COUNT(*), SUM(amount_cents)
FROM latest_orders
GROUP BY customer;
