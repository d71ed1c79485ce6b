-- Issue 17. Rate limits: fixed windows gave an attacker twice a limit across a window edge. Each key
-- now keeps one GCRA state (the generic cell rate algorithm of nginx's limit_req): its theoretical
-- arrival time, which every counted hit pushes forward by window/max and which drains continuously,
-- plus the time of its last hit (the login delay's clock). Old windows are dropped: a count restarts.
DROP TABLE "rate_limits";--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"tat" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "rate_limits_tat" ON "rate_limits" USING btree ("tat");--> statement-breakpoint
-- Mirror tokens were stored in clear: a copy of the database alone opened every peer's
-- configuration (its private key) through GET /api/mirror/<token>. Links are now looked up by the
-- token's SHA-256 (base64url, as lib/crypto.ts's sha256), and the token is kept only encrypted
-- under SECRET_KEY, to show the link to its owner. The hash of every existing token is computed
-- here, so links already handed out keep working; the server encrypts the clear tokens left in
-- "mirror_token_enc" at its next start (services/mirrorTokens.ts), where the key is at hand.
ALTER TABLE "peers" ADD COLUMN "mirror_token_hash" text;--> statement-breakpoint
UPDATE "peers" SET "mirror_token_hash" = translate(rtrim(encode(sha256(convert_to("mirror_token", 'UTF8')), 'base64'), '='), '+/', '-_');--> statement-breakpoint
ALTER TABLE "peers" ALTER COLUMN "mirror_token_hash" SET NOT NULL;--> statement-breakpoint
DROP INDEX "peers_mirror_token";--> statement-breakpoint
CREATE UNIQUE INDEX "peers_mirror_token_hash" ON "peers" USING btree ("mirror_token_hash");--> statement-breakpoint
ALTER TABLE "peers" RENAME COLUMN "mirror_token" TO "mirror_token_enc";
