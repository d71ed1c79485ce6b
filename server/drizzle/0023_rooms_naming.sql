-- Issue 18: one internal name for rooms. The tables, columns, indexes and constraints that said
-- "party" say "room"; the wire keeps the spec's words (partys, allow_partys, party_id…), mapped in
-- packages/contracts. Renames only: no row changes, and every index and constraint is kept.
ALTER TABLE "parties" RENAME TO "rooms";--> statement-breakpoint
ALTER SEQUENCE "parties_id_seq" RENAME TO "rooms_id_seq";--> statement-breakpoint
ALTER TABLE "rooms" RENAME CONSTRAINT "parties_pkey" TO "rooms_pkey";--> statement-breakpoint
ALTER TABLE "rooms" RENAME CONSTRAINT "parties_owner_id_customers_id_fk" TO "rooms_owner_id_customers_id_fk";--> statement-breakpoint
ALTER INDEX "parties_name_lower" RENAME TO "rooms_name_lower";--> statement-breakpoint
ALTER INDEX "parties_owner" RENAME TO "rooms_owner";--> statement-breakpoint
ALTER INDEX "parties_name_trgm" RENAME TO "rooms_name_trgm";--> statement-breakpoint
ALTER TABLE "party_members" RENAME TO "room_members";--> statement-breakpoint
ALTER TABLE "room_members" RENAME COLUMN "party_id" TO "room_id";--> statement-breakpoint
ALTER TABLE "room_members" RENAME CONSTRAINT "party_members_party_id_peer_id_pk" TO "room_members_room_id_peer_id_pk";--> statement-breakpoint
ALTER TABLE "room_members" RENAME CONSTRAINT "party_members_party_id_parties_id_fk" TO "room_members_room_id_rooms_id_fk";--> statement-breakpoint
ALTER TABLE "room_members" RENAME CONSTRAINT "party_members_peer_id_peers_id_fk" TO "room_members_peer_id_peers_id_fk";--> statement-breakpoint
ALTER INDEX "party_members_peer" RENAME TO "room_members_peer";--> statement-breakpoint
ALTER TABLE "peers" RENAME COLUMN "party_id" TO "room_id";--> statement-breakpoint
ALTER TABLE "peers" RENAME CONSTRAINT "peers_party_id_parties_id_fk" TO "peers_room_id_rooms_id_fk";--> statement-breakpoint
ALTER INDEX "peers_party" RENAME TO "peers_room";--> statement-breakpoint
ALTER TABLE "servers" RENAME COLUMN "allow_partys" TO "allow_rooms";
