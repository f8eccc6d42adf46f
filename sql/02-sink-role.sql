-- The least a sink's role needs, proven sufficient and each grant necessary by
-- MisconfigurationITCase (which runs this very script, with its variables set, as psql does).
-- Run with psql as an administrator, after 01-marker-table.sql. Its psql variables name your schema (of the
-- target table and the marker table), role, password and target table; each has a default:
--   psql -v schema=shop -v role=orders_sink -v password=... -v table=orders -f sql/02-sink-role.sql
-- As written (psql -f sql/02-sink-role.sql) it creates the role flink_sink with the password change-me and
-- grants on schema public and the marker table 01 created there. Without table it grants on no target table
-- (a fresh database has none: the example jobs' tables get their grants in 04-example-tables.sql). Names are
-- taken as given, quoted: write them as PostgreSQL stores them (lower case unless you created them quoted).
-- The role does not need to be a superuser. PostgreSQL lets only the role that prepared a transaction
-- (or a superuser) commit or roll it back: writer and committer must use the same role, and so
-- must every later run of the job (its startup recovery rolls back what earlier runs prepared).
\if :{?schema}
\else
\set schema public
\endif
\if :{?role}
\else
\set role flink_sink
\endif
\if :{?password}
\else
\set password change-me
\endif

CREATE ROLE :"role" LOGIN PASSWORD :'password';

-- The schema of the target table and of the marker table: USAGE, without which the sink cannot
-- even see its tables. Schema public has it for everyone by default; any other schema needs it.
GRANT USAGE ON SCHEMA :"schema" TO :"role";

-- The target table(s): INSERT. With upsert(...) also SELECT and UPDATE (INSERT ... ON CONFLICT (key)
-- DO UPDATE reads the key columns and updates the others), and DELETE with changelog(...) or with a
-- citext or nondeterministic-collation key (one statement deletes and upserts). With your own
-- statement, what it does (UPDATE, DELETE; SELECT on every column it reads, the columns of an
-- ON CONFLICT target included). A serial/bigserial column's default also needs USAGE on its
-- sequence; an identity column does not. With -v table=<your table>, the script grants INSERT on it; add
-- what your sink needs beyond INSERT by hand, as GRANT SELECT, UPDATE ON shop.orders TO orders_sink.
\if :{?table}
GRANT INSERT ON :"schema".:"table" TO :"role";
\endif

-- The marker table (sql/01-marker-table.sql, run by an administrator with the same schema): INSERT, one
-- row inside each transaction; SELECT, to prove a commit; DELETE, to prune old rows. In a schema other
-- than public, configure the sink with markerTable("<schema>", "eosink_markers") unless that schema is on
-- the role's search_path.
GRANT INSERT, SELECT, DELETE ON :"schema".eosink_markers TO :"role";

-- Instead of the marker table grant above: let the sink create the table itself
-- (createMarkerTable(true), the default) with CREATE on its schema. The role then owns it.
-- Since PostgreSQL 15 nobody but the owner may create in schema public without this grant.
--   GRANT CREATE ON SCHEMA shop TO orders_sink;

-- Only with routed tables that are evolving() (replication with ReplicaTables.readEvolving): CREATE
-- on each schema the sink creates tables in (it then owns them), and, for a table that exists and
-- gains columns, ownership: PostgreSQL lets only a table's owner ALTER TABLE ... ADD COLUMN. With
-- your schema and tables for replica:
--   GRANT CREATE ON SCHEMA replica TO orders_sink;
--   ALTER TABLE replica.orders OWNER TO orders_sink;

-- Only with deadLetterTable(...): INSERT on the dead-letter table, created by an administrator
-- (the DDL is in the sink's error message when it is missing) or by the sink (CREATE, as above).
--   GRANT INSERT ON shop.orders_dead_letters TO orders_sink;

-- Needs no grant: CONNECT on the database (PUBLIC has it unless revoked; then
-- GRANT CONNECT ON DATABASE ... TO orders_sink), reading pg_prepared_xacts, pg_locks and
-- pg_stat_activity, advisory locks (the guard against two jobs with one sink id),
-- PREPARE TRANSACTION, and COMMIT/ROLLBACK PREPARED of its own transactions.
