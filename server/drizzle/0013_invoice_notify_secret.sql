-- Issue 9 (Remesita): each invoice's notification URL carries a secret; only its SHA-256 is kept.
ALTER TABLE "invoices" ADD COLUMN "notify_secret_hash" text;
