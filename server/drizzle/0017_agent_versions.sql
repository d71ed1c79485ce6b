-- Agent versions and upgrades (issue 16): the Node.js version an agent said in its hello, and the
-- last "Actualizar agente" asked of it: pending (sent, waiting for the agent to come back with
-- the target version) or failed (the agent kept its old file and said why: upgrade_error). Null
-- once the agent came back upgraded.
ALTER TABLE "servers" ADD COLUMN "agent_node_version" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "agent_upgrade_status" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "agent_upgrade_version" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "agent_upgrade_error" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "agent_upgrade_at" timestamp with time zone;
