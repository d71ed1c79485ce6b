ALTER TABLE "parties" ADD COLUMN "pending_revision" jsonb;--> statement-breakpoint
ALTER TABLE "server_changes" ADD COLUMN "full" boolean DEFAULT false NOT NULL;