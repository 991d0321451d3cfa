DROP TRIGGER "relay_wiki_passages_delete";
DROP TRIGGER "relay_wiki_passages_insert";
DROP TABLE "relay_wiki_passages_fts";
CREATE VIRTUAL TABLE "relay_wiki_passages_fts" USING fts5("normalizedText", content="relay_wiki_passages", content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4');
CREATE VIRTUAL TABLE "relay_wiki_passages_vocab" USING fts5vocab("relay_wiki_passages_fts", 'row');
CREATE TRIGGER "relay_wiki_passages_insert" AFTER INSERT ON "relay_wiki_passages" BEGIN
    INSERT INTO "relay_wiki_passages_fts" (rowid, "normalizedText") VALUES (new."id", new."normalizedText");
END;
CREATE TRIGGER "relay_wiki_passages_delete" AFTER DELETE ON "relay_wiki_passages" BEGIN
    INSERT INTO "relay_wiki_passages_fts" ("relay_wiki_passages_fts", rowid, "normalizedText") VALUES ('delete', old."id", old."normalizedText");
END;
INSERT INTO "relay_wiki_passages_fts" ("relay_wiki_passages_fts") VALUES ('rebuild');
