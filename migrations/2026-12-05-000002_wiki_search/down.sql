DROP TRIGGER "relay_wiki_passages_delete";
DROP TRIGGER "relay_wiki_passages_insert";
DROP TABLE "relay_wiki_passages_vocab";
DROP TABLE "relay_wiki_passages_fts";
DROP TABLE "relay_wiki_passages";
