-- Issue 33: the scans that run on every ack or every scheduler tick read only what is due.
-- Room settling looks for rooms waiting on agents: few at a time, found through a partial index
-- instead of a scan of every room.
CREATE INDEX "rooms_pending" ON "rooms" USING btree ("id") WHERE "pending_revision" IS NOT NULL;--> statement-breakpoint
-- The expiry scan (active peers whose period ended): peers that expired long ago and are off are
-- not in this index, so each tick reads the peers that are due, not every peer that ever expired.
CREATE INDEX "peers_expiry_due" ON "peers" USING btree ("expires_at") WHERE "active";--> statement-breakpoint
-- The allowance scans: data_due is true once a peer's use reaches 80 % of its allowance (a new
-- period sets data_used back to 0, and with it data_due). The 80 % notice and the switch-off read
-- only those peers. The column's value changes once per period, so the per-reading update of
-- data_used (in no index) stays HOT: PostgreSQL compares the indexed values, not the SET list.
ALTER TABLE "peers" ADD COLUMN "data_due" boolean GENERATED ALWAYS AS (data_allowance is not null and data_used * 100 >= data_allowance * 80) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "peers_data_due" ON "peers" USING btree ("id") WHERE "data_due" AND "data_exhausted_at" IS NULL;--> statement-breakpoint
-- Stats rewrite these rows in place every few seconds: room in each page for the new version keeps
-- the update HOT (no index entry written, far less WAL). New pages follow at once; old ones as
-- they are rewritten.
ALTER TABLE "peers" SET (fillfactor = 80);--> statement-breakpoint
ALTER TABLE "peer_stats" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "server_usage_hourly" SET (fillfactor = 50);
