-- Bus events bigger than pg_notify's 8000-byte payload limit (a room's push with many members): the
-- event is stored here and only its id is notified; every instance reads it. Rows live a few minutes.
CREATE TABLE "bus_payloads" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"payload" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
