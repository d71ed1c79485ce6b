-- Issue 17, L4: an agent reads a peer's counters once more before the peer leaves its interface
-- (disabled, moved, re-keyed) and reports them. By then the peer may sit on another server or have
-- another key, so that last report is matched through the state this server last reported for the
-- peer: peer_stats by (server, key).
CREATE INDEX "peer_stats_server_key" ON "peer_stats" USING btree ("server_id","public_key");
