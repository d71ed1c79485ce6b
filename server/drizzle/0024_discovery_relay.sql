-- Issue 25: game discovery across rooms. A per-server switch (on by default; the site switch
-- `allow_discovery` in settings turns it off everywhere) and what the server's agent last reported
-- of its relay: whether its rules are in place, datagrams relayed and dropped since it started.
ALTER TABLE "servers" ADD COLUMN "allow_discovery" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "relay_active" boolean;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "relay_relayed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "relay_dropped" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "relay_reported_at" timestamp with time zone;
