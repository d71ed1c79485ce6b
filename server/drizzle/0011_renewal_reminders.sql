-- Renewal reminders (issue 9): when the 72 h and the 24 h reminder mails went out. The scheduler of
-- every instance claims a reminder with one conditional UPDATE ... RETURNING on these columns, so
-- each is sent once; a reminder counts for the expiry it was sent for (sent at or after
-- expires_at - 72 h / 24 h), so a renewal, or a manager moving the date, arms it again.
ALTER TABLE "peers" ADD COLUMN "reminded_72h_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "peers" ADD COLUMN "reminded_24h_at" timestamp with time zone;
