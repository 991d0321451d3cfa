-- Wiki search prefixes (issue #15): the last word of a query is a prefix as the operator types,
-- and FTS5 answers a prefix longer than its longest prefix index by merging the whole list of
-- every word that starts with it (about 40 ms for a word in most of 100,000 passages). Prefix
-- indexes for 2 to 8 characters make that a single list read for every prefix up to 8
-- characters, at about 0.8x the main index in size (61 MiB more for 100,000 passages). The
-- fts5vocab table is gone: common words are counted through the index, up to a limit.
DROP TRIGGER "relay_wiki_passages_delete";
DROP TRIGGER "relay_wiki_passages_insert";
DROP TABLE "relay_wiki_passages_vocab";
DROP TABLE "relay_wiki_passages_fts";
CREATE VIRTUAL TABLE "relay_wiki_passages_fts" USING fts5("normalizedText", content="relay_wiki_passages", content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 5 6 7 8');
CREATE TRIGGER "relay_wiki_passages_insert" AFTER INSERT ON "relay_wiki_passages" BEGIN
    INSERT INTO "relay_wiki_passages_fts" (rowid, "normalizedText") VALUES (new."id", new."normalizedText");
END;
CREATE TRIGGER "relay_wiki_passages_delete" AFTER DELETE ON "relay_wiki_passages" BEGIN
    INSERT INTO "relay_wiki_passages_fts" ("relay_wiki_passages_fts", rowid, "normalizedText") VALUES ('delete', old."id", old."normalizedText");
END;
-- The passages already stored are indexed again.
INSERT INTO "relay_wiki_passages_fts" ("relay_wiki_passages_fts") VALUES ('rebuild');
