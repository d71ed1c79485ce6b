-- Issue 17, L9: a manager's switch-off stays until a manager lifts it; buying a plan no longer
-- switches such a peer back on. Peers that are off now because of a manager's `peer.disable` (their
-- latest enable/disable in the audit log) keep that switch-off; peers off because they expired or
-- used up their data are not marked.
ALTER TABLE "peers" ADD COLUMN "manager_disabled_at" timestamp with time zone;--> statement-breakpoint
UPDATE "peers" SET "manager_disabled_at" = "last"."created_at"
FROM (
  SELECT DISTINCT ON ("target_id") "target_id", "action", "created_at"
  FROM "audit_log"
  WHERE "target_type" = 'peer' AND "action" IN ('peer.disable', 'peer.enable')
  ORDER BY "target_id", "created_at" DESC, "id" DESC
) AS "last"
WHERE "last"."action" = 'peer.disable' AND "peers"."active" = false AND "peers"."id"::text = "last"."target_id";
