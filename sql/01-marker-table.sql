-- The marker table: one row per prepared transaction, written inside that transaction.
-- A row is visible exactly when its transaction committed. When a transaction id is no longer
-- among the prepared transactions, its row is the only proof that it committed (and was not
-- rolled back by someone else). The sink creates this table itself when it may
-- (createMarkerTable(true), the default); run this when the sink's role may not create tables.
-- Rows older than the sink's markerRetention (7 days by default) are pruned by the sink.
-- Run with psql as an administrator; the psql variable schema names the table's schema (default public):
--   psql -v schema=shop -f sql/01-marker-table.sql
-- A schema other than public: configure the sink with markerTable("<schema>", "eosink_markers").
-- An upsert sink also writes notice rows here (sink_id '<sink id>/carried', gid 'carried/<gid>') when it
-- carries writes past a checkpoint's barrier in that checkpoint's state; the transaction that writes them
-- deletes the notice. A job started without that state refuses to start while one is visible.
\if :{?schema}
\else
\set schema public
\endif

CREATE TABLE IF NOT EXISTS :"schema".eosink_markers (
    gid           text        PRIMARY KEY,     -- the prepared transaction's id: eos1/<sink>/<subtask>/<checkpoint>/<run>
    sink_id       text        NOT NULL,
    subtask       integer     NOT NULL,
    checkpoint_id bigint      NOT NULL,
    row_count     bigint      NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS eosink_markers_sink_created ON :"schema".eosink_markers (sink_id, created_at);
