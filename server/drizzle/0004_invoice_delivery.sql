ALTER TABLE "invoices" ADD COLUMN "delivery_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "delivery_retry_at" timestamp with time zone;--> statement-breakpoint
-- Invoices delivered before this migration whose credited_at was never written (a crash between the
-- peer and the invoice update) already have their plan-history row: they count as delivered.
UPDATE "invoices" SET "credited_at" = coalesce("invoices"."paid_at", now()), "peer_id" = coalesce("invoices"."peer_id", "ph"."peer_id") FROM "plan_history" "ph" WHERE "ph"."invoice_id" = "invoices"."id" AND "invoices"."credited_at" IS NULL;--> statement-breakpoint
-- One delivery per invoice, whatever happens: a second peer or a second plan for it is refused.
CREATE UNIQUE INDEX "plan_history_invoice" ON "plan_history" USING btree ("invoice_id");--> statement-breakpoint
CREATE INDEX "invoices_undelivered" ON "invoices" USING btree ("paid_at") WHERE "invoices"."status" = 'paid' and "invoices"."credited_at" is null;
