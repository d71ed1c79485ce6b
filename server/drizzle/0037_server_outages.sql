-- Issue 34: the times each server's agent was away, so the Resumen charts mark past outages too
-- (not only the one going on now). Opened when the agent's connection closes, closed when it says
-- hello again (ended_at null while ongoing); one open outage per server at most.
CREATE TABLE IF NOT EXISTS "server_outages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" integer NOT NULL REFERENCES "servers"("id") ON DELETE CASCADE,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "server_outages_server_started" ON "server_outages" ("server_id","started_at");
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "server_outages_open" ON "server_outages" ("server_id") WHERE "ended_at" IS NULL;
