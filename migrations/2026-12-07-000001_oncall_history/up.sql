-- On-call history (issue #38 item 7a): one server-written row per change of an `oncall` row, so
-- every client can answer "who was on call for Network at 02:00 last Tuesday?" from the same
-- server-side record. The rows are written by the triggers below, inside the very statement (and
-- so the transaction) that changes `oncall`: every write path (record API, batches, offline
-- replay, imports) is covered, and a write that is refused or rolled back leaves no history.
-- `created` is the time of the change (the row's new `updated`, or the database clock for a
-- delete); `stateBefore`/`stateAfter` are the row's fields before and after ('{}' when there is
-- none). Each history row draws the next store-wide revision like any other write. Clients read
-- the collection; only these triggers write it; retention prunes it (`domain::retention`).
CREATE TABLE "oncall_history" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "recordId" TEXT NOT NULL DEFAULT '',
    "action" TEXT NOT NULL DEFAULT '',
    "teamId" TEXT NOT NULL DEFAULT '',
    "team" TEXT NOT NULL DEFAULT '',
    "stateBefore" TEXT NOT NULL DEFAULT '{}' CHECK (json_valid("stateBefore")),
    "stateAfter" TEXT NOT NULL DEFAULT '{}' CHECK (json_valid("stateAfter"))
);
CREATE INDEX "idx_oncall_history_created" ON "oncall_history" ("created");

CREATE TRIGGER "oncall_history_on_create" AFTER INSERT ON "oncall"
BEGIN
    UPDATE relay_sequence SET value = value + 1 WHERE name = 'revision';
    INSERT INTO "oncall_history" ("id", "created", "updated", "revision", "recordId", "action", "teamId", "team",
                                  "stateBefore", "stateAfter")
    VALUES (lower(substr(hex(randomblob(8)), 1, 15)), NEW."updated", NEW."updated",
            (SELECT value FROM relay_sequence WHERE name = 'revision'), NEW."id", 'create', NEW."teamId", NEW."team",
            '{}',
            json_object('team', NEW."team", 'role', NEW."role", 'name', NEW."name", 'contact', NEW."contact", 'timeWindow', NEW."timeWindow", 'sortOrder', NEW."sortOrder", 'teamId', NEW."teamId"));
END;

-- An update that changes no board field (a resave) records nothing.
CREATE TRIGGER "oncall_history_on_update" AFTER UPDATE ON "oncall"
WHEN OLD."team" IS NOT NEW."team" OR OLD."role" IS NOT NEW."role" OR OLD."name" IS NOT NEW."name" OR OLD."contact" IS NOT NEW."contact" OR OLD."timeWindow" IS NOT NEW."timeWindow" OR OLD."sortOrder" IS NOT NEW."sortOrder" OR OLD."teamId" IS NOT NEW."teamId"
BEGIN
    UPDATE relay_sequence SET value = value + 1 WHERE name = 'revision';
    INSERT INTO "oncall_history" ("id", "created", "updated", "revision", "recordId", "action", "teamId", "team",
                                  "stateBefore", "stateAfter")
    VALUES (lower(substr(hex(randomblob(8)), 1, 15)), NEW."updated", NEW."updated",
            (SELECT value FROM relay_sequence WHERE name = 'revision'), NEW."id", 'update', NEW."teamId", NEW."team",
            json_object('team', OLD."team", 'role', OLD."role", 'name', OLD."name", 'contact', OLD."contact", 'timeWindow', OLD."timeWindow", 'sortOrder', OLD."sortOrder", 'teamId', OLD."teamId"),
            json_object('team', NEW."team", 'role', NEW."role", 'name', NEW."name", 'contact', NEW."contact", 'timeWindow', NEW."timeWindow", 'sortOrder', NEW."sortOrder", 'teamId', NEW."teamId"));
END;

CREATE TRIGGER "oncall_history_on_delete" AFTER DELETE ON "oncall"
BEGIN
    UPDATE relay_sequence SET value = value + 1 WHERE name = 'revision';
    INSERT INTO "oncall_history" ("id", "created", "updated", "revision", "recordId", "action", "teamId", "team",
                                  "stateBefore", "stateAfter")
    VALUES (lower(substr(hex(randomblob(8)), 1, 15)), strftime('%Y-%m-%d %H:%M:%fZ', 'now'), strftime('%Y-%m-%d %H:%M:%fZ', 'now'),
            (SELECT value FROM relay_sequence WHERE name = 'revision'), OLD."id", 'delete', OLD."teamId", OLD."team",
            json_object('team', OLD."team", 'role', OLD."role", 'name', OLD."name", 'contact', OLD."contact", 'timeWindow', OLD."timeWindow", 'sortOrder', OLD."sortOrder", 'teamId', OLD."teamId"),
            '{}');
END;
