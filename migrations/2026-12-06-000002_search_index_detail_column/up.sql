-- Cheaper writes for the contains-search index (issue #20): the trigram tables of
-- 2026-12-03-000002 are rebuilt with `detail=column` (no token positions: the index only finds
-- candidates, and the store keeps the LIKE for the exact answer, so its FTS5 query is the AND of
-- each run's trigrams within the column instead of a phrase) and `columnsize=0` (no per-row
-- %_docsize row: nothing ranks with bm25). The update triggers also skip the re-index when no
-- indexed value changed. Every table is rebuilt from its content table here.

DROP TRIGGER "relay_fts_contacts_update";
DROP TRIGGER "relay_fts_contacts_delete";
DROP TRIGGER "relay_fts_contacts_insert";
DROP TABLE "relay_fts_contacts";
CREATE VIRTUAL TABLE "relay_fts_contacts" USING fts5("name", "email", "phone", "title", content="contacts", content_rowid='rowid', tokenize='trigram case_sensitive 0', detail=column, columnsize=0);
CREATE TRIGGER "relay_fts_contacts_insert" AFTER INSERT ON "contacts" BEGIN
    INSERT INTO "relay_fts_contacts" (rowid, "name", "email", "phone", "title") VALUES (new.rowid, new."name", new."email", new."phone", new."title");
END;
CREATE TRIGGER "relay_fts_contacts_delete" AFTER DELETE ON "contacts" BEGIN
    INSERT INTO "relay_fts_contacts" ("relay_fts_contacts", rowid, "name", "email", "phone", "title") VALUES ('delete', old.rowid, old."name", old."email", old."phone", old."title");
END;
CREATE TRIGGER "relay_fts_contacts_update" AFTER UPDATE OF "name", "email", "phone", "title" ON "contacts"
    WHEN old."name" IS NOT new."name" OR old."email" IS NOT new."email" OR old."phone" IS NOT new."phone" OR old."title" IS NOT new."title" BEGIN
    INSERT INTO "relay_fts_contacts" ("relay_fts_contacts", rowid, "name", "email", "phone", "title") VALUES ('delete', old.rowid, old."name", old."email", old."phone", old."title");
    INSERT INTO "relay_fts_contacts" (rowid, "name", "email", "phone", "title") VALUES (new.rowid, new."name", new."email", new."phone", new."title");
END;
INSERT INTO "relay_fts_contacts" ("relay_fts_contacts") VALUES ('rebuild');

DROP TRIGGER "relay_fts_servers_update";
DROP TRIGGER "relay_fts_servers_delete";
DROP TRIGGER "relay_fts_servers_insert";
DROP TABLE "relay_fts_servers";
CREATE VIRTUAL TABLE "relay_fts_servers" USING fts5("name", "businessArea", "lob", "comment", "owner", "contact", "os", content="servers", content_rowid='rowid', tokenize='trigram case_sensitive 0', detail=column, columnsize=0);
CREATE TRIGGER "relay_fts_servers_insert" AFTER INSERT ON "servers" BEGIN
    INSERT INTO "relay_fts_servers" (rowid, "name", "businessArea", "lob", "comment", "owner", "contact", "os") VALUES (new.rowid, new."name", new."businessArea", new."lob", new."comment", new."owner", new."contact", new."os");
END;
CREATE TRIGGER "relay_fts_servers_delete" AFTER DELETE ON "servers" BEGIN
    INSERT INTO "relay_fts_servers" ("relay_fts_servers", rowid, "name", "businessArea", "lob", "comment", "owner", "contact", "os") VALUES ('delete', old.rowid, old."name", old."businessArea", old."lob", old."comment", old."owner", old."contact", old."os");
END;
CREATE TRIGGER "relay_fts_servers_update" AFTER UPDATE OF "name", "businessArea", "lob", "comment", "owner", "contact", "os" ON "servers"
    WHEN old."name" IS NOT new."name" OR old."businessArea" IS NOT new."businessArea" OR old."lob" IS NOT new."lob" OR old."comment" IS NOT new."comment" OR old."owner" IS NOT new."owner" OR old."contact" IS NOT new."contact" OR old."os" IS NOT new."os" BEGIN
    INSERT INTO "relay_fts_servers" ("relay_fts_servers", rowid, "name", "businessArea", "lob", "comment", "owner", "contact", "os") VALUES ('delete', old.rowid, old."name", old."businessArea", old."lob", old."comment", old."owner", old."contact", old."os");
    INSERT INTO "relay_fts_servers" (rowid, "name", "businessArea", "lob", "comment", "owner", "contact", "os") VALUES (new.rowid, new."name", new."businessArea", new."lob", new."comment", new."owner", new."contact", new."os");
END;
INSERT INTO "relay_fts_servers" ("relay_fts_servers") VALUES ('rebuild');

DROP TRIGGER "relay_fts_notes_update";
DROP TRIGGER "relay_fts_notes_delete";
DROP TRIGGER "relay_fts_notes_insert";
DROP TABLE "relay_fts_notes";
CREATE VIRTUAL TABLE "relay_fts_notes" USING fts5("note", content="notes", content_rowid='rowid', tokenize='trigram case_sensitive 0', detail=column, columnsize=0);
CREATE TRIGGER "relay_fts_notes_insert" AFTER INSERT ON "notes" BEGIN
    INSERT INTO "relay_fts_notes" (rowid, "note") VALUES (new.rowid, new."note");
END;
CREATE TRIGGER "relay_fts_notes_delete" AFTER DELETE ON "notes" BEGIN
    INSERT INTO "relay_fts_notes" ("relay_fts_notes", rowid, "note") VALUES ('delete', old.rowid, old."note");
END;
CREATE TRIGGER "relay_fts_notes_update" AFTER UPDATE OF "note" ON "notes"
    WHEN old."note" IS NOT new."note" BEGIN
    INSERT INTO "relay_fts_notes" ("relay_fts_notes", rowid, "note") VALUES ('delete', old.rowid, old."note");
    INSERT INTO "relay_fts_notes" (rowid, "note") VALUES (new.rowid, new."note");
END;
INSERT INTO "relay_fts_notes" ("relay_fts_notes") VALUES ('rebuild');

DROP TRIGGER "relay_fts_standalone_notes_update";
DROP TRIGGER "relay_fts_standalone_notes_delete";
DROP TRIGGER "relay_fts_standalone_notes_insert";
DROP TABLE "relay_fts_standalone_notes";
CREATE VIRTUAL TABLE "relay_fts_standalone_notes" USING fts5("title", "content", content="standalone_notes", content_rowid='rowid', tokenize='trigram case_sensitive 0', detail=column, columnsize=0);
CREATE TRIGGER "relay_fts_standalone_notes_insert" AFTER INSERT ON "standalone_notes" BEGIN
    INSERT INTO "relay_fts_standalone_notes" (rowid, "title", "content") VALUES (new.rowid, new."title", new."content");
END;
CREATE TRIGGER "relay_fts_standalone_notes_delete" AFTER DELETE ON "standalone_notes" BEGIN
    INSERT INTO "relay_fts_standalone_notes" ("relay_fts_standalone_notes", rowid, "title", "content") VALUES ('delete', old.rowid, old."title", old."content");
END;
CREATE TRIGGER "relay_fts_standalone_notes_update" AFTER UPDATE OF "title", "content" ON "standalone_notes"
    WHEN old."title" IS NOT new."title" OR old."content" IS NOT new."content" BEGIN
    INSERT INTO "relay_fts_standalone_notes" ("relay_fts_standalone_notes", rowid, "title", "content") VALUES ('delete', old.rowid, old."title", old."content");
    INSERT INTO "relay_fts_standalone_notes" (rowid, "title", "content") VALUES (new.rowid, new."title", new."content");
END;
INSERT INTO "relay_fts_standalone_notes" ("relay_fts_standalone_notes") VALUES ('rebuild');

DROP TRIGGER "relay_fts_alert_history_update";
DROP TRIGGER "relay_fts_alert_history_delete";
DROP TRIGGER "relay_fts_alert_history_insert";
DROP TABLE "relay_fts_alert_history";
CREATE VIRTUAL TABLE "relay_fts_alert_history" USING fts5("subject", content="alert_history", content_rowid='rowid', tokenize='trigram case_sensitive 0', detail=column, columnsize=0);
CREATE TRIGGER "relay_fts_alert_history_insert" AFTER INSERT ON "alert_history" BEGIN
    INSERT INTO "relay_fts_alert_history" (rowid, "subject") VALUES (new.rowid, new."subject");
END;
CREATE TRIGGER "relay_fts_alert_history_delete" AFTER DELETE ON "alert_history" BEGIN
    INSERT INTO "relay_fts_alert_history" ("relay_fts_alert_history", rowid, "subject") VALUES ('delete', old.rowid, old."subject");
END;
CREATE TRIGGER "relay_fts_alert_history_update" AFTER UPDATE OF "subject" ON "alert_history"
    WHEN old."subject" IS NOT new."subject" BEGIN
    INSERT INTO "relay_fts_alert_history" ("relay_fts_alert_history", rowid, "subject") VALUES ('delete', old.rowid, old."subject");
    INSERT INTO "relay_fts_alert_history" (rowid, "subject") VALUES (new.rowid, new."subject");
END;
INSERT INTO "relay_fts_alert_history" ("relay_fts_alert_history") VALUES ('rebuild');
