-- The creation-order frontier of each collection with a search index (issue #41 item 2). A
-- newest-first list of a `~` search reads the index's matches in descending rowid order and stops
-- after the page (`infra::store::newest_first`), which is the page's `created DESC, rowid DESC`
-- order only where rowid order is `created` order. `frontier` makes that checkable in the same
-- statement: no row whose rowid is above it has a row before it (a smaller rowid) with a later
-- `created` (compared as ORDER BY compares the text). Relay writes `created` once, from the
-- writer's clock, as it inserts the row with the next rowid, so the frontier normally stays 0. A
-- row that breaks the order raises it to the collection's largest rowid: an insert with a
-- `created` before the newest (a wall clock stepped back, a row written with an earlier time) or
-- below the largest rowid, or any change of `created`. Pages that reach down to the frontier
-- fall back to the exact plan. It never falls: deleting rows cannot break the order of the rest.
-- The insert trigger costs two index probes (the largest `created`, the largest rowid); updates
-- that leave `created` alone do not run it.

CREATE TABLE "relay_created_order" (
    "collection" TEXT PRIMARY KEY NOT NULL,
    "frontier" INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO "relay_created_order" ("collection", "frontier")
    SELECT 'contacts', COALESCE(max(r), 0) FROM (
        SELECT rowid AS r, "created" < max("created") OVER (ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
        FROM "contacts"
    ) WHERE late;
CREATE TRIGGER "relay_created_order_contacts_insert" AFTER INSERT ON "contacts"
WHEN new."created" < (SELECT max("created") FROM "contacts") OR new.rowid < (SELECT max(rowid) FROM "contacts") BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "contacts")) WHERE "collection" = 'contacts';
END;
CREATE TRIGGER "relay_created_order_contacts_update" AFTER UPDATE OF "created" ON "contacts"
WHEN new."created" IS NOT old."created" BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "contacts")) WHERE "collection" = 'contacts';
END;

INSERT INTO "relay_created_order" ("collection", "frontier")
    SELECT 'servers', COALESCE(max(r), 0) FROM (
        SELECT rowid AS r, "created" < max("created") OVER (ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
        FROM "servers"
    ) WHERE late;
CREATE TRIGGER "relay_created_order_servers_insert" AFTER INSERT ON "servers"
WHEN new."created" < (SELECT max("created") FROM "servers") OR new.rowid < (SELECT max(rowid) FROM "servers") BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "servers")) WHERE "collection" = 'servers';
END;
CREATE TRIGGER "relay_created_order_servers_update" AFTER UPDATE OF "created" ON "servers"
WHEN new."created" IS NOT old."created" BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "servers")) WHERE "collection" = 'servers';
END;

INSERT INTO "relay_created_order" ("collection", "frontier")
    SELECT 'notes', COALESCE(max(r), 0) FROM (
        SELECT rowid AS r, "created" < max("created") OVER (ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
        FROM "notes"
    ) WHERE late;
CREATE TRIGGER "relay_created_order_notes_insert" AFTER INSERT ON "notes"
WHEN new."created" < (SELECT max("created") FROM "notes") OR new.rowid < (SELECT max(rowid) FROM "notes") BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "notes")) WHERE "collection" = 'notes';
END;
CREATE TRIGGER "relay_created_order_notes_update" AFTER UPDATE OF "created" ON "notes"
WHEN new."created" IS NOT old."created" BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "notes")) WHERE "collection" = 'notes';
END;

INSERT INTO "relay_created_order" ("collection", "frontier")
    SELECT 'standalone_notes', COALESCE(max(r), 0) FROM (
        SELECT rowid AS r, "created" < max("created") OVER (ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
        FROM "standalone_notes"
    ) WHERE late;
CREATE TRIGGER "relay_created_order_standalone_notes_insert" AFTER INSERT ON "standalone_notes"
WHEN new."created" < (SELECT max("created") FROM "standalone_notes") OR new.rowid < (SELECT max(rowid) FROM "standalone_notes") BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "standalone_notes")) WHERE "collection" = 'standalone_notes';
END;
CREATE TRIGGER "relay_created_order_standalone_notes_update" AFTER UPDATE OF "created" ON "standalone_notes"
WHEN new."created" IS NOT old."created" BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "standalone_notes")) WHERE "collection" = 'standalone_notes';
END;

INSERT INTO "relay_created_order" ("collection", "frontier")
    SELECT 'alert_history', COALESCE(max(r), 0) FROM (
        SELECT rowid AS r, "created" < max("created") OVER (ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late
        FROM "alert_history"
    ) WHERE late;
CREATE TRIGGER "relay_created_order_alert_history_insert" AFTER INSERT ON "alert_history"
WHEN new."created" < (SELECT max("created") FROM "alert_history") OR new.rowid < (SELECT max(rowid) FROM "alert_history") BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "alert_history")) WHERE "collection" = 'alert_history';
END;
CREATE TRIGGER "relay_created_order_alert_history_update" AFTER UPDATE OF "created" ON "alert_history"
WHEN new."created" IS NOT old."created" BEGIN
    UPDATE "relay_created_order" SET "frontier" = max("frontier", (SELECT max(rowid) FROM "alert_history")) WHERE "collection" = 'alert_history';
END;
