-- Issue 10: one gateway transaction settles one invoice. Rows that already share a transaction id
-- (a confirmation that credited a second invoice before the fix) keep the id on the earliest
-- invoice; the others keep it too, marked with their own invoice id, so nothing is lost for review.
UPDATE "invoices" SET "transaction_uuid" = "invoices"."transaction_uuid" || '#duplicada-' || "invoices"."id" FROM "invoices" "first" WHERE "first"."transaction_uuid" = "invoices"."transaction_uuid" AND ("first"."created_at", "first"."id") < ("invoices"."created_at", "invoices"."id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_transaction" ON "invoices" USING btree ("transaction_uuid");
