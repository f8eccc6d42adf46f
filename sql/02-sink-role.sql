-- The least a sink's role needs. Replace flink_sink, the password and the target table.
-- It does not need to be a superuser. PostgreSQL lets only the role that prepared a transaction
-- (or a superuser) commit or roll it back: writer and committer must use the same role.
CREATE ROLE flink_sink LOGIN PASSWORD 'change-me';

-- The target table(s): INSERT (plus UPDATE/DELETE if you write upserts or deletes).
GRANT INSERT ON public.orders TO flink_sink;

-- The marker table: written inside each transaction, read to prove commits, pruned.
GRANT INSERT, SELECT, DELETE ON eosink_markers TO flink_sink;

-- Reading pg_prepared_xacts, pg_locks and pg_stat_activity needs no grant.
-- Advisory locks (the guard against two jobs with one sink id) need no grant.
