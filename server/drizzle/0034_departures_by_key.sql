-- Issue 33: a last report is matched to the key that left its server (a move or, now, a re-key) by
-- server and key; without this index every report carrying last readings scanned every departure.
CREATE INDEX "peer_departures_server_key" ON "peer_departures" ("server_id","public_key");
