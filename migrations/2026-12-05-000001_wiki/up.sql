-- The Wiki (knowledge base) library (issue #15). `wiki_categories` and `wiki_documents` are
-- collections: signed-in clients read them through the record API and realtime (documents only
-- while `lifecycleState` is 'active'), and only the server writes them, through the typed
-- `wiki.*` privileged commands. The `relay_wiki_*` tables are the server's own: upload batches,
-- uploads and their chunks (bound to the publishing account and device), never reachable through
-- the record API. PDFs and covers live content-addressed under `store/wiki/` beside this
-- database, so a backup carries them; upload staging lives outside `store/` and is disposable.
CREATE TABLE "wiki_categories" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "normalizedName" TEXT NOT NULL DEFAULT '',
    "sortOrder" REAL NOT NULL DEFAULT 0,
    "systemKey" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_wiki_categories_created" ON "wiki_categories" ("created");
CREATE UNIQUE INDEX "idx_wiki_categories_normalizedName" ON "wiki_categories" ("normalizedName");
CREATE INDEX "idx_wiki_categories_order" ON "wiki_categories" ("sortOrder", "name");
INSERT INTO "wiki_categories" ("id", "created", "updated", "revision", "name", "normalizedName", "sortOrder", "systemKey")
VALUES ('wikiuncategoriz', strftime('%Y-%m-%d %H:%M:%fZ', 'now'), strftime('%Y-%m-%d %H:%M:%fZ', 'now'), 1,
        'Uncategorized', 'uncategorized', 1000000, 'uncategorized');

CREATE TABLE "wiki_documents" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "sourceKey" TEXT NOT NULL DEFAULT '',
    "categoryId" TEXT NOT NULL DEFAULT '',
    "documentType" TEXT NOT NULL DEFAULT '',
    "title" TEXT NOT NULL DEFAULT '',
    "fileName" TEXT NOT NULL DEFAULT '',
    "checksum" TEXT NOT NULL DEFAULT '',
    "byteSize" REAL NOT NULL DEFAULT 0,
    "pageCount" REAL NOT NULL DEFAULT 0,
    "outline" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("outline")),
    "coverChecksum" TEXT NOT NULL DEFAULT '',
    "lifecycleState" TEXT NOT NULL DEFAULT '',
    "publishedByAccountId" TEXT NOT NULL DEFAULT '',
    "publishedByName" TEXT NOT NULL DEFAULT '',
    "publishedAt" TEXT NOT NULL DEFAULT '',
    "trashedAt" TEXT NOT NULL DEFAULT '',
    "trashedByName" TEXT NOT NULL DEFAULT '',
    "searchIndexState" TEXT NOT NULL DEFAULT '',
    "searchIndexError" TEXT NOT NULL DEFAULT '',
    "searchIndexedAt" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_wiki_documents_created" ON "wiki_documents" ("created");
CREATE INDEX "idx_wiki_documents_category" ON "wiki_documents" ("categoryId", "title");
CREATE INDEX "idx_wiki_documents_state" ON "wiki_documents" ("lifecycleState");
-- One active document per source identity and per authored file name; trashed ones may repeat.
CREATE UNIQUE INDEX "idx_wiki_documents_active_source" ON "wiki_documents" ("sourceKey") WHERE "lifecycleState" = 'active';
CREATE UNIQUE INDEX "idx_wiki_documents_active_file" ON "wiki_documents" ("fileName" COLLATE NOCASE) WHERE "lifecycleState" = 'active';

-- One batch per publishing session of an account (at most one active per account).
CREATE TABLE "relay_wiki_upload_batches" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "accountId" TEXT NOT NULL,
    "deviceId" TEXT NOT NULL DEFAULT '',
    "actorName" TEXT NOT NULL DEFAULT '',
    "fileCount" INTEGER NOT NULL,
    "totalBytes" INTEGER NOT NULL,
    "state" TEXT NOT NULL CHECK ("state" IN ('active', 'cancelled', 'expired', 'completed')),
    "createdAt" INTEGER NOT NULL,
    "lastActivityAt" INTEGER NOT NULL,
    "expiresAt" INTEGER NOT NULL
);
CREATE UNIQUE INDEX "idx_relay_wiki_upload_batches_active" ON "relay_wiki_upload_batches" ("accountId") WHERE "state" = 'active';

CREATE TABLE "relay_wiki_uploads" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "batchId" TEXT NOT NULL REFERENCES "relay_wiki_upload_batches" ("id") ON DELETE CASCADE,
    "accountId" TEXT NOT NULL,
    "deviceId" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL,
    "fileName" TEXT NOT NULL,
    "byteSize" INTEGER NOT NULL,
    "checksum" TEXT NOT NULL,
    "chunkSize" INTEGER NOT NULL,
    "chunkCount" INTEGER NOT NULL,
    "replacementDocumentId" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL,
    "safeError" TEXT NOT NULL DEFAULT '',
    "pageCount" INTEGER NOT NULL DEFAULT 0,
    "outline" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("outline")),
    "coverChecksum" TEXT NOT NULL DEFAULT '',
    "publishedDocumentId" TEXT NOT NULL DEFAULT '',
    "lastActivityAt" INTEGER NOT NULL,
    "expiresAt" INTEGER NOT NULL
);
CREATE UNIQUE INDEX "idx_relay_wiki_uploads_position" ON "relay_wiki_uploads" ("batchId", "position");

-- Which chunks of an upload are stored (the bytes are files in the upload's staging directory).
CREATE TABLE "relay_wiki_upload_chunks" (
    "uploadId" TEXT NOT NULL REFERENCES "relay_wiki_uploads" ("id") ON DELETE CASCADE,
    "chunkIndex" INTEGER NOT NULL,
    "byteSize" INTEGER NOT NULL,
    "checksum" TEXT NOT NULL,
    "storedAt" INTEGER NOT NULL,
    PRIMARY KEY ("uploadId", "chunkIndex")
);
