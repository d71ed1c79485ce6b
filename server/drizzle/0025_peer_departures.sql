-- Issue 31 §4: a server's last report of a key that has moved away (a `since` tail) counts only
-- when that key did leave that server: each move records the server the peer left and the key it
-- had there. Without it a compromised node could raise any moved peer's data_used.
CREATE TABLE "peer_departures" (
	"peer_id" integer NOT NULL,
	"server_id" integer NOT NULL,
	"public_key" text NOT NULL,
	"left_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "peer_departures_peer_id_server_id_pk" PRIMARY KEY("peer_id","server_id")
);
--> statement-breakpoint
ALTER TABLE "peer_departures" ADD CONSTRAINT "peer_departures_peer_id_peers_id_fk" FOREIGN KEY ("peer_id") REFERENCES "public"."peers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "peer_departures" ADD CONSTRAINT "peer_departures_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;
