-- Wiki full-text search (issue #15): the server-owned passages of every published document
-- (about 900 characters each, cut and normalized by `domain::wiki::passages`), and an FTS5
-- index over their normalized text kept current by triggers, in the same store so backups
-- carry it. Search is derived data: a document whose passages are missing is still readable.
CREATE TABLE "relay_wiki_passages" (
    "id" INTEGER PRIMARY KEY,
    "documentId" TEXT NOT NULL,
    "checksum" TEXT NOT NULL,
    "pageNumber" INTEGER NOT NULL,
    "passageNumber" INTEGER NOT NULL,
    "headingId" TEXT NOT NULL DEFAULT '',
    "heading" TEXT NOT NULL DEFAULT '',
    "text" TEXT NOT NULL,
    "normalizedText" TEXT NOT NULL,
    "indexVersion" INTEGER NOT NULL
);
CREATE INDEX "idx_relay_wiki_passages_document" ON "relay_wiki_passages" ("documentId", "pageNumber", "passageNumber");

-- Prefix indexes for 2-4 characters: the last word of a query is a prefix as the operator types.
CREATE VIRTUAL TABLE "relay_wiki_passages_fts" USING fts5("normalizedText", content="relay_wiki_passages", content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4');
-- How many passages hold each word: a search leaves out whole words found in most passages.
CREATE VIRTUAL TABLE "relay_wiki_passages_vocab" USING fts5vocab("relay_wiki_passages_fts", 'row');
CREATE TRIGGER "relay_wiki_passages_insert" AFTER INSERT ON "relay_wiki_passages" BEGIN
    INSERT INTO "relay_wiki_passages_fts" (rowid, "normalizedText") VALUES (new."id", new."normalizedText");
END;
CREATE TRIGGER "relay_wiki_passages_delete" AFTER DELETE ON "relay_wiki_passages" BEGIN
    INSERT INTO "relay_wiki_passages_fts" ("relay_wiki_passages_fts", rowid, "normalizedText") VALUES ('delete', old."id", old."normalizedText");
END;
