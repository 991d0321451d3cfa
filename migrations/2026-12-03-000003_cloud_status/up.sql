-- Server-owned service status (status_feeds actor): one record per provider, and one record
-- per toasted incident episode. Clients read both through the record API and realtime; only
-- the server writes them.
CREATE TABLE "cloud_status" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "provider" TEXT NOT NULL DEFAULT '',
    "items" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("items")),
    "error" TEXT NOT NULL DEFAULT '',
    "checkedAt" TEXT NOT NULL DEFAULT '',
    "lastSuccessAt" TEXT NOT NULL DEFAULT '',
    "contentHash" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_cloud_status_created" ON "cloud_status" ("created");
CREATE UNIQUE INDEX "idx_cloud_status_provider" ON "cloud_status" ("provider");

CREATE TABLE "cloud_status_notices" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "episode" TEXT NOT NULL DEFAULT '',
    "provider" TEXT NOT NULL DEFAULT '',
    "itemId" TEXT NOT NULL DEFAULT '',
    "severity" TEXT NOT NULL DEFAULT '',
    "title" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_cloud_status_notices_created" ON "cloud_status_notices" ("created");
CREATE UNIQUE INDEX "idx_cloud_status_notices_episode" ON "cloud_status_notices" ("episode");
