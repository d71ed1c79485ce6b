-- Issue 34: a bulk action tells each affected customer once, by e-mail and Telegram where linked.
-- One row per customer and action, written in the action's transaction; the scheduler mails the
-- pending ones (mailed_at) and the Telegram lease holder sends them to linked chats (telegram_at).
CREATE TABLE IF NOT EXISTS "customer_notices" (
	"id" serial PRIMARY KEY NOT NULL,
	"customer_id" integer NOT NULL REFERENCES "customers"("id") ON DELETE CASCADE,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"mailed_at" timestamp with time zone,
	"telegram_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customer_notices_mail_pending" ON "customer_notices" ("id") WHERE "mailed_at" IS NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customer_notices_telegram_pending" ON "customer_notices" ("id") WHERE "telegram_at" IS NULL;
