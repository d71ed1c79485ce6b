-- Manager console (issue 7): roles, two-factor sign-in, a richer audit log, manual grants and
-- payments, and trigram indexes so every admin search stays fast at 100,000 peers.
UPDATE "managers" SET "role" = 'owner' WHERE "role" NOT IN ('owner', 'operations', 'support', 'finance');--> statement-breakpoint
ALTER TABLE "managers" ALTER COLUMN "role" SET DEFAULT 'support';--> statement-breakpoint
ALTER TABLE "managers" ADD CONSTRAINT "managers_role" CHECK ("role" IN ('owner', 'operations', 'support', 'finance'));--> statement-breakpoint
ALTER TABLE "managers" ADD COLUMN "totp_secret_enc" text;--> statement-breakpoint
ALTER TABLE "managers" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "managers" ADD COLUMN "recovery_codes" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_name" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "target_type" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "target_id" text;--> statement-breakpoint
CREATE INDEX "audit_log_actor" ON "audit_log" USING btree ("actor_id", "created_at");--> statement-breakpoint
CREATE INDEX "audit_log_target" ON "audit_log" USING btree ("target_type", "target_id", "created_at");--> statement-breakpoint
ALTER TABLE "plan_history" ADD COLUMN "manual" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plan_history" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "plan_history" ADD COLUMN "granted_by" integer REFERENCES "managers"("id") ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "marked_by" integer REFERENCES "managers"("id") ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "mark_reason" text;--> statement-breakpoint
CREATE INDEX "invoices_created" ON "invoices" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "invoices_status_created" ON "invoices" USING btree ("status", "created_at");--> statement-breakpoint
CREATE INDEX "customers_created" ON "customers" USING btree ("created_at");--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "customers_username_trgm" ON "customers" USING gin (lower("username") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "customers_email_trgm" ON "customers" USING gin (lower("email") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "customers_alias_trgm" ON "customers" USING gin (lower("alias") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "peers_name_trgm" ON "peers" USING gin (lower("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "peers_public_key_trgm" ON "peers" USING gin ("public_key" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "peers_address_trgm" ON "peers" USING gin (host("address") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "peers_expires" ON "peers" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "invoices_remote_trgm" ON "invoices" USING gin (lower("remote_id") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "invoices_new_peer_name_trgm" ON "invoices" USING gin (lower("new_peer_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "invoices_peer" ON "invoices" USING btree ("peer_id");
