-- Manager console catalogue (issue 7): the rooms list searches names with the trigram index, and a
-- plan's invoices (shown in the plans list; a plan with any cannot be deleted) are counted by index.
CREATE INDEX "parties_name_trgm" ON "parties" USING gin (lower("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "invoices_plan" ON "invoices" USING btree ("plan_id");
