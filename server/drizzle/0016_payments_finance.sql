-- Money that arrives (issue 15). Remesita credits on its documented IPN, so each gateway payment
-- reference seen in a paid notice is kept once (payment_notices, unique per gateway and reference):
-- a repeated notice (paid, then completed) finds it and changes nothing, and money that arrived
-- for an invoice no longer open, or that did not match it, stays visible to the operator
-- ("pago sin factura abierta") instead of being dropped.
CREATE TABLE "payment_notices" (
	"id" serial PRIMARY KEY NOT NULL,
	"gateway" text NOT NULL,
	"reference" text NOT NULL,
	"invoice_id" uuid,
	"amount" numeric(10, 2),
	"currency" text,
	"gateway_status" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "payment_notices" ADD CONSTRAINT "payment_notices_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_notices_reference" ON "payment_notices" USING btree ("gateway","reference");--> statement-breakpoint
CREATE INDEX "payment_notices_unmatched" ON "payment_notices" USING btree ("created_at") WHERE "outcome" = 'unmatched';--> statement-breakpoint
-- Refunds: through the gateway (its refund id) or recorded by hand, always with a reason and the
-- manager; the plan period the invoice bought is taken back (plan_history.refunded_at).
ALTER TABLE "invoices" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "refunded_by" integer;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "refund_reason" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "refund_reference" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "refund_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_refunded_by_managers_id_fk" FOREIGN KEY ("refunded_by") REFERENCES "public"."managers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- A customer polling a pending invoice asks its gateway at most once per 30 s (claimed here); what
-- that check said (a refusal in Spanish) is kept for the polls in between.
ALTER TABLE "invoices" ADD COLUMN "gateway_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "gateway_message" text;--> statement-breakpoint
ALTER TABLE "plan_history" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
-- The revenue table groups paid and refunded invoices by month.
CREATE INDEX "invoices_paid_at" ON "invoices" USING btree ("paid_at") WHERE "paid_at" IS NOT NULL;
