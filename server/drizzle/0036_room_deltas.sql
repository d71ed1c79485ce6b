-- Issue 33: a room change reaches the agents that understand it as a delta (the room pairs it adds
-- and removes, the rooms whose relay entry and the servers whose mesh link changed) instead of a full
-- snapshot of every involved server. Null: no room change (or `full`, for older agents a snapshot).
ALTER TABLE "server_changes" ADD COLUMN IF NOT EXISTS "rooms" jsonb;
