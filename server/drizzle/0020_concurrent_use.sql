-- Issue 19: one device per peer. A peer whose endpoint alternates between source addresses (its
-- agent's `concurrent_use` report) carries when this episode was first seen, the last report, how
-- many distinct addresses alternated and the last two truncated to /24 or /48 (never a full
-- address), and the reports of the last 24 h (the Ajustes policy counts them). Cleared 24 h after
-- the last report (scheduler) or by a regenerate.
ALTER TABLE "peers" ADD COLUMN "concurrent_use_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "concurrent_use_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "concurrent_use_endpoints" integer;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "concurrent_use_recent" jsonb;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "concurrent_use_reports" jsonb;--> statement-breakpoint
CREATE INDEX "peers_concurrent_use" ON "peers" USING btree ("concurrent_use_seen_at") WHERE "concurrent_use_seen_at" is not null;
