CREATE TABLE "announcements" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"message" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"actor_realm" text NOT NULL,
	"actor_id" integer,
	"action" text NOT NULL,
	"target" text,
	"data" jsonb,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "captcha_spent" (
	"signature" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "client_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"url" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"id" serial PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"alias" text,
	"email" text,
	"email_verified" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"sessions_valid_after" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"customer_id" integer NOT NULL,
	"kind" text NOT NULL,
	"email" text,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" integer NOT NULL,
	"operation" text NOT NULL,
	"peer_id" integer,
	"new_peer_name" text,
	"plan_id" integer NOT NULL,
	"plan_name" text NOT NULL,
	"amount" numeric(10, 2) NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"gateway" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"remote_id" text,
	"transaction_uuid" text,
	"payment_url" text,
	"paid_at" timestamp with time zone,
	"credited_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "managers" (
	"id" serial PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text DEFAULT 'admin' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"sessions_valid_after" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "parties" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner_id" integer NOT NULL,
	"password_enc" text NOT NULL,
	"processing" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "party_members" (
	"party_id" integer NOT NULL,
	"peer_id" integer NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "party_members_party_id_peer_id_pk" PRIMARY KEY("party_id","peer_id")
);
--> statement-breakpoint
CREATE TABLE "peer_usage" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"peer_id" integer NOT NULL,
	"server_id" integer NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	"latest_handshake" timestamp with time zone,
	"endpoint" text,
	"sampled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "peers" (
	"id" serial PRIMARY KEY NOT NULL,
	"customer_id" integer NOT NULL,
	"server_id" integer NOT NULL,
	"name" text NOT NULL,
	"address_index" integer NOT NULL,
	"address" "inet" NOT NULL,
	"address_v6" "inet",
	"public_key" text NOT NULL,
	"private_key_enc" text NOT NULL,
	"preshared_key_enc" text NOT NULL,
	"mirror_token" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"expires_at" timestamp with time zone,
	"manual_payment" boolean DEFAULT false NOT NULL,
	"party_id" integer,
	"pending_operation" text,
	"pending_revision" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_history" (
	"id" serial PRIMARY KEY NOT NULL,
	"peer_id" integer NOT NULL,
	"plan_id" integer,
	"plan_name" text NOT NULL,
	"plan_price" numeric(10, 2) NOT NULL,
	"validity" interval NOT NULL,
	"invoice_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"price" numeric(10, 2) NOT NULL,
	"validity" interval NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"hits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_limits_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"realm" text NOT NULL,
	"subject_id" integer NOT NULL,
	"family_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"remember" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"user_agent" text,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "refresh_tokens_realm" CHECK ("refresh_tokens"."realm" in ('customer', 'manager'))
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"host" text NOT NULL,
	"port" integer DEFAULT 51820 NOT NULL,
	"ubication" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"allow_partys" boolean DEFAULT false NOT NULL,
	"dns" text DEFAULT '1.1.1.1, 8.8.8.8' NOT NULL,
	"mtu" integer DEFAULT 1420 NOT NULL,
	"interface_name" text DEFAULT 'wg0' NOT NULL,
	"public_key" text NOT NULL,
	"private_key_enc" text NOT NULL,
	"agent_token_hash" text,
	"revision" bigint DEFAULT 0 NOT NULL,
	"acked_revision" bigint DEFAULT 0 NOT NULL,
	"agent_version" text,
	"last_seen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_tokens" ADD CONSTRAINT "email_tokens_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_peer_id_peers_id_fk" FOREIGN KEY ("peer_id") REFERENCES "public"."peers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "parties" ADD CONSTRAINT "parties_owner_id_customers_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "party_members" ADD CONSTRAINT "party_members_party_id_parties_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."parties"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "party_members" ADD CONSTRAINT "party_members_peer_id_peers_id_fk" FOREIGN KEY ("peer_id") REFERENCES "public"."peers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "peer_usage" ADD CONSTRAINT "peer_usage_peer_id_peers_id_fk" FOREIGN KEY ("peer_id") REFERENCES "public"."peers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "peer_usage" ADD CONSTRAINT "peer_usage_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "peers" ADD CONSTRAINT "peers_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "peers" ADD CONSTRAINT "peers_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "peers" ADD CONSTRAINT "peers_party_id_parties_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."parties"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_history" ADD CONSTRAINT "plan_history_peer_id_peers_id_fk" FOREIGN KEY ("peer_id") REFERENCES "public"."peers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_history" ADD CONSTRAINT "plan_history_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_time" ON "audit_log" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_username_lower" ON "customers" USING btree (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX "customers_alias_lower" ON "customers" USING btree (lower("alias"));--> statement-breakpoint
CREATE UNIQUE INDEX "customers_email_lower" ON "customers" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "email_tokens_hash" ON "email_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invoices_customer" ON "invoices" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_remote" ON "invoices" USING btree ("gateway","remote_id");--> statement-breakpoint
CREATE UNIQUE INDEX "managers_username_lower" ON "managers" USING btree (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX "parties_name_lower" ON "parties" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "parties_owner" ON "parties" USING btree ("owner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "party_members_peer" ON "party_members" USING btree ("peer_id");--> statement-breakpoint
CREATE INDEX "peer_usage_peer_time" ON "peer_usage" USING btree ("peer_id","sampled_at");--> statement-breakpoint
CREATE UNIQUE INDEX "peers_address_index" ON "peers" USING btree ("address_index");--> statement-breakpoint
CREATE UNIQUE INDEX "peers_public_key" ON "peers" USING btree ("public_key");--> statement-breakpoint
CREATE UNIQUE INDEX "peers_mirror_token" ON "peers" USING btree ("mirror_token");--> statement-breakpoint
CREATE INDEX "peers_customer" ON "peers" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "peers_server" ON "peers" USING btree ("server_id");--> statement-breakpoint
CREATE INDEX "peers_party" ON "peers" USING btree ("party_id");--> statement-breakpoint
CREATE INDEX "plan_history_peer" ON "plan_history" USING btree ("peer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "refresh_tokens_hash" ON "refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "refresh_tokens_family" ON "refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_subject" ON "refresh_tokens" USING btree ("realm","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "servers_agent_token" ON "servers" USING btree ("agent_token_hash");