-- Issue 33: the hourly usage table partitioned by UTC day (PostgreSQL's declarative partitioning,
-- PGlite too). At 1,000,000 peers it holds hundreds of millions of rows over its 30 days; the
-- compaction then folds a whole day and drops its partition instead of deleting rows one by one
-- (no dead tuples, no vacuum debt, no index on `hour` needed). New days are created ahead by the
-- scheduler (services/peers/usagePartitions.ts); a row for a day without a partition (a clock far
-- off, tests writing old hours) lands in the default partition and is compacted row by row.
ALTER TABLE "peer_usage_hourly" RENAME TO "peer_usage_hourly_unpartitioned";--> statement-breakpoint
ALTER TABLE "peer_usage_hourly_unpartitioned" RENAME CONSTRAINT "peer_usage_hourly_pkey" TO "peer_usage_hourly_unpartitioned_pkey";--> statement-breakpoint
CREATE TABLE "peer_usage_hourly" (
	"peer_id" integer NOT NULL REFERENCES "peers"("id") ON DELETE CASCADE,
	"server_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	PRIMARY KEY ("peer_id", "hour")
) PARTITION BY RANGE ("hour");--> statement-breakpoint
CREATE TABLE "peer_usage_hourly_default" PARTITION OF "peer_usage_hourly" DEFAULT WITH (fillfactor = 50);--> statement-breakpoint
DO $$
DECLARE d date;
BEGIN
  FOR d IN SELECT g::date FROM generate_series((now() AT TIME ZONE 'UTC')::date - 31, (now() AT TIME ZONE 'UTC')::date + 2, interval '1 day') g LOOP
    EXECUTE format(
      'CREATE TABLE %I PARTITION OF peer_usage_hourly FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = 50)',
      'peer_usage_hourly_p' || to_char(d, 'YYYYMMDD'), d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
  END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "peer_usage_hourly" SELECT "peer_id", "server_id", "hour", "rx_bytes", "tx_bytes" FROM "peer_usage_hourly_unpartitioned";--> statement-breakpoint
DROP TABLE "peer_usage_hourly_unpartitioned";--> statement-breakpoint
-- Migration 0029 set 70 here by mistake: 0012 had given this table 50.
ALTER TABLE "peer_stats" SET (fillfactor = 50);--> statement-breakpoint
-- Every limited peer's data_used is rewritten per reading, one statement for a whole batch: each
-- page needs room for a new version of every row on it, or most updates leave the page (not HOT,
-- a new entry in each of the table's 16 indexes). 80 (0029) left room for 2 of ~11 rows per page.
-- New pages follow at once; existing ones after a rewrite (VACUUM FULL peers, docs/scale.md).
ALTER TABLE "peers" SET (fillfactor = 50);
