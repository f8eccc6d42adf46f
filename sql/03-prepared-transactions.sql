-- Operator's view of prepared transactions, for a job that died and never came back
-- (hard case 16). Prepared transactions never time out: until someone finishes them they hold
-- their row locks and hold back VACUUM (table bloat, and eventually transaction-id wraparound).
CREATE OR REPLACE VIEW eosink_prepared_transactions AS
SELECT split_part(p.gid, '/', 2)                 AS sink_id,
       split_part(p.gid, '/', 3)::int            AS subtask,
       split_part(p.gid, '/', 4)::bigint         AS checkpoint_id,
       split_part(p.gid, '/', 5)                 AS run,
       p.gid,
       p.prepared,
       now() - p.prepared                        AS age,
       p.owner,
       p.database
FROM pg_prepared_xacts p
WHERE p.gid LIKE 'eos1/%';

-- List them, oldest first:
--   SELECT sink_id, subtask, checkpoint_id, age, gid FROM eosink_prepared_transactions ORDER BY prepared;
--
-- Resolve one. If the job will be restored from a checkpoint or savepoint, do nothing: the
-- restored job commits what its checkpoint promised and rolls back the rest. If it will never
-- come back, decide per transaction: a transaction whose checkpoint completed holds rows that
-- Flink considers delivered; commit it. Otherwise roll it back. Must run outside a transaction
-- block, in the same database, as the sink's role or a superuser:
--   COMMIT PREPARED 'eos1/orders/0/42/k3j9x0qa';
--   ROLLBACK PREPARED 'eos1/orders/0/43/k3j9x0qa';
--
-- Roll back everything of one sink that is older than an hour (psql):
--   SELECT format('ROLLBACK PREPARED %L', gid) FROM eosink_prepared_transactions
--    WHERE sink_id = 'orders' AND age > interval '1 hour' \gexec
