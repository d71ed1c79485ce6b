-- Issue 35: plans sold by speed, and "reduce" instead of "cut". A plan's speeds each way in kbit/s
-- (null = unlimited), what happens when its data runs out ('cut' or 'reduce'), the reduced speed,
-- and the days of grace at that speed after expiry. A peer keeps the terms of the last plan applied
-- (like its data allowance), and whether and why it is held at the reduced speed now.
ALTER TABLE "plans" ADD COLUMN "speed_down_kbit" integer;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "speed_up_kbit" integer;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "data_exhausted_action" text DEFAULT 'cut' NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "reduced_kbit" integer DEFAULT 256 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "grace_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "speed_down_kbit" integer;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "speed_up_kbit" integer;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "reduce_on_exhausted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "reduced_kbit" integer DEFAULT 256 NOT NULL;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "grace_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "speed_reduced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "speed_reduced_reason" text;
