-- Issue 33: the per-server peer counts of /metrics, counted once per METRICS_PEER_COUNTS_SECONDS for
-- the whole cluster (the scheduler's `scheduler:peer-counts` lease) instead of once per instance: at
-- 1,000,000 peers each count is a full scan of `peers` (~143,000 buffers, ~1.4 s of PostgreSQL).
-- Every instance's scrape reads these rows (services/site/telemetry.ts).
CREATE TABLE IF NOT EXISTS "server_peer_counts" (
	"server_id" integer PRIMARY KEY NOT NULL REFERENCES "servers"("id") ON DELETE CASCADE,
	"active" integer NOT NULL,
	"disabled" integer NOT NULL,
	"concurrent" integer NOT NULL,
	"shaped" integer NOT NULL,
	"reduced" integer NOT NULL,
	"counted_at" timestamp with time zone NOT NULL
);
