-- Manager console, fleet (issue 7): a server drain's progress, in the database so every instance
-- can report it (the instance running the drain updates it after every batch).
CREATE TABLE "server_drains" (
	"server_id" integer PRIMARY KEY NOT NULL REFERENCES "servers"("id") ON DELETE CASCADE,
	"total" integer NOT NULL,
	"moved" integer DEFAULT 0 NOT NULL,
	"started_by" integer REFERENCES "managers"("id") ON DELETE SET NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
-- Per-server traffic per day and "online now" (Resumen charts) read peer_usage by server and time.
CREATE INDEX "peer_usage_server_time" ON "peer_usage" USING btree ("server_id", "sampled_at");
