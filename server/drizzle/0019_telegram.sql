-- Telegram bot (issue 20). A chat linked to a customer or a manager account (one chat per account
-- and realm), with the customer's notification switches; the one-time codes of "Vincular Telegram"
-- (stored as SHA-256, 10 minutes, single use); claims of sent notices (one row per notice, so two
-- instances never send one twice); manager alert states (what was observed since when, what was
-- last told and when: one message per state change, at most one per 5 minutes); updates already
-- handled (two instances never answer one update twice); the poller's lease (one poller at a time);
-- announcements to broadcast.
CREATE TABLE "telegram_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"realm" text NOT NULL,
	"subject_id" integer NOT NULL,
	"chat_id" bigint NOT NULL,
	"linked_at" timestamp with time zone NOT NULL,
	"notify_reminders" boolean DEFAULT true NOT NULL,
	"notify_allowance" boolean DEFAULT true NOT NULL,
	"notify_payments" boolean DEFAULT true NOT NULL,
	"notify_announcements" boolean DEFAULT true NOT NULL,
	"notify_concurrent" boolean DEFAULT true NOT NULL,
	CONSTRAINT "telegram_links_realm" CHECK ("telegram_links"."realm" in ('customer', 'manager'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "telegram_links_subject" ON "telegram_links" USING btree ("realm","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "telegram_links_chat" ON "telegram_links" USING btree ("realm","chat_id");--> statement-breakpoint
CREATE TABLE "telegram_link_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"realm" text NOT NULL,
	"subject_id" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);--> statement-breakpoint
CREATE TABLE "telegram_sent" (
	"key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "telegram_alerts" (
	"key" text PRIMARY KEY NOT NULL,
	"observed" text NOT NULL,
	"observed_since" timestamp with time zone NOT NULL,
	"notified" text,
	"notified_at" timestamp with time zone
);--> statement-breakpoint
CREATE TABLE "telegram_updates" (
	"update_id" bigint PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "telegram_lease" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);--> statement-breakpoint
CREATE TABLE "telegram_broadcasts" (
	"id" serial PRIMARY KEY NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp with time zone
);
