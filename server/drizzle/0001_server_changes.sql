CREATE TABLE "server_changes" (
	"server_id" integer NOT NULL,
	"revision" bigint NOT NULL,
	"upsert_peer_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"remove_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "server_changes_server_id_revision_pk" PRIMARY KEY("server_id","revision")
);
--> statement-breakpoint
ALTER TABLE "server_changes" ADD CONSTRAINT "server_changes_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;