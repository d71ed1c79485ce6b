-- Issue 33: room members as the room computations read them (services/fleet/roomDelta.ts), in a narrow
-- table apart from `peers`. A room join's mesh link reads the members of every room two servers share;
-- from `peers` that was one heap page per room member of the other server (400–800 a node at
-- bench:fleet's size), pages the stats reports rewrite (data_used) all the time, so never in cache and
-- never all-visible: a join's update took up to 50 ms to build. Here an index-only scan reads ~250
-- members a page. Kept by triggers on `peers`, whatever changes a member (a join, a leave, a move, a
-- room's or a peer's deletion, SQL by hand): a stats write (data_used) never fires them.
CREATE TABLE IF NOT EXISTS "room_links" (
	"peer_id" integer PRIMARY KEY NOT NULL REFERENCES "peers"("id") ON DELETE CASCADE,
	"room_id" integer NOT NULL,
	"server_id" integer NOT NULL,
	"address" inet NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "room_links_server_room" ON "room_links" USING btree ("server_id","room_id") INCLUDE ("address");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "room_links_room" ON "room_links" USING btree ("room_id") INCLUDE ("peer_id","server_id","address");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION room_links_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.room_id IS NULL THEN
		DELETE FROM room_links WHERE peer_id = NEW.id;
	ELSE
		INSERT INTO room_links (peer_id, room_id, server_id, address)
		VALUES (NEW.id, NEW.room_id, NEW.server_id, NEW.address)
		ON CONFLICT (peer_id) DO UPDATE
			SET room_id = EXCLUDED.room_id, server_id = EXCLUDED.server_id, address = EXCLUDED.address;
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER room_links_insert AFTER INSERT ON peers FOR EACH ROW
	WHEN (NEW.room_id IS NOT NULL) EXECUTE FUNCTION room_links_sync();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER room_links_update AFTER UPDATE OF room_id, server_id, address ON peers FOR EACH ROW
	WHEN (OLD.room_id IS NOT NULL OR NEW.room_id IS NOT NULL) EXECUTE FUNCTION room_links_sync();
--> statement-breakpoint
INSERT INTO room_links (peer_id, room_id, server_id, address)
	SELECT id, room_id, server_id, address FROM peers WHERE room_id IS NOT NULL
	ON CONFLICT (peer_id) DO NOTHING;
