-- Issue 34: node health in the console. The agent's last `node_health` report (interface totals,
-- throughput, load, CPU, memory; contracts' AgentNodeHealth without its type) and when it came,
-- and when the agent's connection last closed: with last_seen_at cleared on close, it is how long
-- a server has been "Sin conexión".
ALTER TABLE "servers" ADD COLUMN "health" jsonb;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "health_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "disconnected_at" timestamp with time zone;
