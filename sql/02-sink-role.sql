-- The least a sink's role needs, proven sufficient and each grant necessary by
-- MisconfigurationITCase (which runs this very script with the names replaced).
-- Runs as written on a fresh database, as an administrator after 01-marker-table.sql: it creates
-- the role flink_sink and grants on schema public and the marker table 01 created there. Replace
-- flink_sink and the password with yours, and public with your schema if your tables are in
-- another one; then grant on your target table as its section below shows (your table does not
-- exist on a fresh database: the example jobs' tables get their grants in 04-example-tables.sql).
-- It does not need to be a superuser. PostgreSQL lets only the role that prepared a transaction
-- (or a superuser) commit or roll it back: writer and committer must use the same role, and so
-- must every later run of the job (its startup recovery rolls back what earlier runs prepared).
CREATE ROLE flink_sink LOGIN PASSWORD 'change-me';

-- The schema of the target table and of the marker table: USAGE, without which the sink cannot
-- even see its tables. Schema public has it for everyone by default; any other schema needs it.
GRANT USAGE ON SCHEMA public TO flink_sink;

-- The target table(s): INSERT. With upsert(...) also SELECT and UPDATE (INSERT ... ON CONFLICT (key)
-- DO UPDATE reads the key columns and updates the others), and DELETE with changelog(...) or with a
-- citext or nondeterministic-collation key (one statement deletes and upserts). With your own
-- statement, what it does (UPDATE, DELETE; SELECT on every column it reads, the columns of an
-- ON CONFLICT target included). A serial/bigserial column's default also needs USAGE on its
-- sequence; an identity column does not. With your table's name for orders:
--   GRANT INSERT ON public.orders TO flink_sink;

-- The marker table (sql/01-marker-table.sql, run by an administrator: in schema public unless its
-- search_path says otherwise): INSERT, one row inside each transaction; SELECT, to prove a commit;
-- DELETE, to prune old rows. In another schema, configure the sink with
-- markerTable("<schema>", "eosink_markers") unless that schema is on the role's search_path.
GRANT INSERT, SELECT, DELETE ON public.eosink_markers TO flink_sink;

-- Instead of the marker table grant above: let the sink create the table itself
-- (createMarkerTable(true), the default) with CREATE on its schema. The role then owns it.
-- Since PostgreSQL 15 nobody but the owner may create in schema public without this grant.
--   GRANT CREATE ON SCHEMA public TO flink_sink;

-- Only with routed tables that are evolving() (replication with ReplicaTables.readEvolving): CREATE
-- on each schema the sink creates tables in (it then owns them), and, for a table that exists and
-- gains columns, ownership: PostgreSQL lets only a table's owner ALTER TABLE ... ADD COLUMN. With
-- your schema and tables for replica:
--   GRANT CREATE ON SCHEMA replica TO flink_sink;
--   ALTER TABLE replica.orders OWNER TO flink_sink;

-- Only with deadLetterTable(...): INSERT on the dead-letter table, created by an administrator
-- (the DDL is in the sink's error message when it is missing) or by the sink (CREATE, as above).
--   GRANT INSERT ON public.orders_dead_letters TO flink_sink;

-- Needs no grant: CONNECT on the database (PUBLIC has it unless revoked; then
-- GRANT CONNECT ON DATABASE ... TO flink_sink), reading pg_prepared_xacts, pg_locks and
-- pg_stat_activity, advisory locks (the guard against two jobs with one sink id),
-- PREPARE TRANSACTION, and COMMIT/ROLLBACK PREPARED of its own transactions.
