-- Server settings the exactly-once sink needs. Run as a superuser, then RESTART PostgreSQL:
-- max_prepared_transactions only takes effect at server start.
--
-- max_prepared_transactions: PREPARE TRANSACTION is disabled while it is 0 (the default).
-- A healthy sink holds about 2 prepared transactions per parallel subtask (the checkpoint being
-- committed and the next one). While checkpoints fail after it prepared, each failed checkpoint
-- leaves one more, up to the sink's maxPreparedPerSubtask (default 5), at which the subtask fails
-- over instead. Size it as:
--     sum over all exactly-once sinks of (parallelism x maxPreparedPerSubtask),
--     plus anything else on this server that uses two-phase commit.
-- Each slot costs a few hundred bytes of shared memory; 64 or 128 is a common choice.
-- The sink checks this at job start: it refuses to run with fewer than 2 per subtask, and warns
-- with fewer than maxPreparedPerSubtask per subtask.
ALTER SYSTEM SET max_prepared_transactions = 64;

-- max_connections must be at least max_prepared_transactions' companion: each writer subtask
-- holds one connection, plus one for COPY flow control (the builder's maxCopyBacklog; 0 saves it),
-- each committer subtask up to two (a small pool): up to 4 per subtask.
-- ALTER SYSTEM SET max_connections = 200;

-- Do NOT set idle_in_transaction_session_timeout below your checkpoint interval for the sink's
-- role: the writer keeps a transaction open between two checkpoints. If the server kills it, the
-- task fails and replays from the last checkpoint (correct, but wasted work).
-- ALTER ROLE flink_sink SET idle_in_transaction_session_timeout = 0;

-- Optional, for short checkpoints and faster COPY under load: let the WAL writer flush every 10 ms
-- instead of every 200 ms. A backend streaming COPY must flush WAL itself before it can evict a page
-- it filled, unless the WAL writer already has: with up to 200 ms of WAL pending, COPY likely
-- stalls on those flushes, and the rows still in flight at a checkpoint barrier took longer to
-- store before PREPARE. Measured with ./bench --server-setting wal_writer_delay=10ms (docs/postgresql.md,
-- What PostgreSQL needs). Takes effect on reload.
-- ALTER SYSTEM SET wal_writer_delay = '10ms';
-- SELECT pg_reload_conf();
