-- Issue 33: a room change's mesh link reads, on two servers, the members of the rooms they share
-- (services/fleet/roomDelta.ts). Through peers_server it read every peer of the other server (10,000
-- a node at bench:fleet's size) to keep the few in rooms: a room join's update took 50–200 ms to build.
CREATE INDEX IF NOT EXISTS "peers_room_members" ON "peers" USING btree ("server_id","room_id") WHERE "peers"."room_id" is not null;
