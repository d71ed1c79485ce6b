-- Issue 33: whether a peer is live asks "is its owner disabled?" of this index, which holds only
-- the accounts a manager switched off (few), instead of "is its owner active?" of every customer.
-- bench:fleet (1,000,000 peers, 600,000 customers): each server's snapshot hashed all 600,000
-- customers (a parallel sequential scan, 3 s under load), 100 snapshots at start-up.
CREATE INDEX IF NOT EXISTS "customers_disabled" ON "customers" USING btree ("id") WHERE not "active";
