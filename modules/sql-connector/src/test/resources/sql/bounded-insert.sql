-- A bounded insert into eosink-postgres, as a user runs it with the SQL client:
--   sql-client.sh -j eosink-sql-connector-<version>.jar -f bounded-insert.sql
-- The test (SqlConnectorJarITCase) fills in the placeholders (url, table, ...). The PostgreSQL table exists:
--   CREATE TABLE orders (id bigint NOT NULL, customer text NOT NULL, amount numeric(12, 2) NOT NULL);

SET 'execution.checkpointing.interval' = '1 s';
SET 'parallelism.default' = '2';

-- Ids 1 to 2000, at 500 a second: the sink commits at several checkpoints, the last one at the end.
CREATE TABLE order_ids (
  id BIGINT
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '500',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '2000'
);

CREATE TABLE orders_sink (
  id       BIGINT,
  customer STRING,
  amount   DECIMAL(12, 2)
) WITH (
  'connector'  = 'eosink-postgres',
  'url'        = '${url}',
  'username'   = '${username}',
  'password'   = '${password}',
  'table-name' = '${table}',
  'sink.id'    = '${sink.id}'
);

INSERT INTO orders_sink
SELECT id, CONCAT('c', CAST(MOD(id, 7) AS STRING)), CAST(CAST(id AS DECIMAL(12, 2)) / 100 AS DECIMAL(12, 2))
FROM order_ids;
