-- Data allowance per plan (issue 9): a plan may carry GB for its validity (decimal GB, 10^9 bytes,
-- as carriers count them); applying it copies the bytes to the plan history and to the peer, whose
-- period's traffic is counted in data_used. At 80% the owner is told once (data_notice_at); at 100%
-- the peer is switched off like an expired one (data_exhausted_at) until a plan is applied again.
ALTER TABLE "plans" ADD COLUMN "data_gb" numeric(12, 3);--> statement-breakpoint
ALTER TABLE "plan_history" ADD COLUMN "data_bytes" bigint;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "data_allowance" bigint;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "data_used" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "data_notice_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "data_exhausted_at" timestamp with time zone;--> statement-breakpoint
-- The scheduler looks only at peers with an allowance not yet exhausted (few, next to 100k peers).
CREATE INDEX "peers_data_watch" ON "peers" USING btree ("id") WHERE "data_allowance" IS NOT NULL AND "data_exhausted_at" IS NULL;
