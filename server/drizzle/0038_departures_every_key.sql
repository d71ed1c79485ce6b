-- Issue 33: every departure of a key is kept until that key's last reading consumes it. One row per
-- peer and server kept only the latest: of three re-keys within one stats interval, the middle
-- key's departure was replaced by the last one's and its bytes were never counted. Bounded by the
-- code that writes them (services/peers/departures.ts: a week, 16 per peer and server).
ALTER TABLE "peer_departures" DROP CONSTRAINT "peer_departures_peer_id_server_id_pk";
--> statement-breakpoint
ALTER TABLE "peer_departures" ADD CONSTRAINT "peer_departures_peer_id_server_id_public_key_pk" PRIMARY KEY("peer_id","server_id","public_key");
