-- Issue 31: a relay that cannot be applied never stops peer changes. The agent applies the peers
-- and reports why nft refused the relay's rules; Servidores and /metrics show it until it applies.
ALTER TABLE "servers" ADD COLUMN "relay_error" text;
