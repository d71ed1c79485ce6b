-- Bounded usage storage (issue 9): agents' reports are summed into one row per peer per UTC hour
-- (compacted into one per day after 30 days) and one per server per hour; no sample is kept. Each
-- peer's latest counters, handshake and endpoint live in one row updated in place. Fill factors
-- leave room on each page so the in-place updates stay heap-only (no index churn, no bloat).
CREATE TABLE "peer_stats" (
	"peer_id" integer PRIMARY KEY NOT NULL REFERENCES "peers"("id") ON DELETE CASCADE,
	"server_id" integer NOT NULL,
	"public_key" text NOT NULL,
	"rx_counter" bigint,
	"tx_counter" bigint,
	"latest_handshake" timestamp with time zone,
	"endpoint" text,
	"reported_at" timestamp with time zone DEFAULT now() NOT NULL
) WITH (fillfactor = 50);
--> statement-breakpoint
CREATE TABLE "peer_usage_hourly" (
	"peer_id" integer NOT NULL REFERENCES "peers"("id") ON DELETE CASCADE,
	"server_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	PRIMARY KEY ("peer_id", "hour")
) WITH (fillfactor = 80);
--> statement-breakpoint
CREATE TABLE "peer_usage_daily" (
	"peer_id" integer NOT NULL REFERENCES "peers"("id") ON DELETE CASCADE,
	"server_id" integer NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	PRIMARY KEY ("peer_id", "day")
);
--> statement-breakpoint
CREATE TABLE "server_usage_hourly" (
	"server_id" integer NOT NULL REFERENCES "servers"("id") ON DELETE CASCADE,
	"hour" timestamp with time zone NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	PRIMARY KEY ("server_id", "hour")
);
--> statement-breakpoint
-- The old samples, summed by hour (the scheduler moves hours older than 30 days into days).
INSERT INTO "peer_usage_hourly" ("peer_id", "server_id", "hour", "rx_bytes", "tx_bytes")
SELECT "peer_id", (array_agg("server_id" ORDER BY "sampled_at" DESC))[1],
	date_trunc('hour', "sampled_at", 'UTC'), sum("rx_bytes"), sum("tx_bytes")
FROM "peer_usage" GROUP BY 1, 3;
--> statement-breakpoint
INSERT INTO "server_usage_hourly" ("server_id", "hour", "rx_bytes", "tx_bytes")
SELECT "server_id", date_trunc('hour', "sampled_at", 'UTC'), sum("rx_bytes"), sum("tx_bytes")
FROM "peer_usage" GROUP BY 1, 2;
--> statement-breakpoint
-- Counters unknown (the old scheme kept them in memory): each peer's next report sets its baseline,
-- so traffic already summed above is not counted again.
INSERT INTO "peer_stats" ("peer_id", "server_id", "public_key", "latest_handshake", "endpoint")
SELECT p."id", p."server_id", p."public_key", u."latest_handshake", u."endpoint"
FROM "peers" p
LEFT JOIN LATERAL (
	SELECT "latest_handshake", "endpoint" FROM "peer_usage"
	WHERE "peer_id" = p."id" ORDER BY "sampled_at" DESC LIMIT 1
) u ON true;
--> statement-breakpoint
DROP TABLE "peer_usage";
