-- Relay's managed collections. Every table carries id, created, updated (ms-precision UTC text)
-- and a store-wide monotonically increasing revision. Columns mirror domain/src/collections.rs.
CREATE TABLE relay_sequence (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
INSERT INTO relay_sequence (name, value) VALUES ('revision', 0);

CREATE TABLE "contacts" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "email" TEXT NOT NULL DEFAULT '',
    "phone" TEXT NOT NULL DEFAULT '',
    "title" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_contacts_created" ON "contacts" ("created");
CREATE INDEX "idx_contacts_email" ON "contacts" ("email");
CREATE INDEX "idx_contacts_name" ON "contacts" ("name");

CREATE TABLE "servers" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "businessArea" TEXT NOT NULL DEFAULT '',
    "lob" TEXT NOT NULL DEFAULT '',
    "comment" TEXT NOT NULL DEFAULT '',
    "owner" TEXT NOT NULL DEFAULT '',
    "contact" TEXT NOT NULL DEFAULT '',
    "os" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_servers_created" ON "servers" ("created");
CREATE INDEX "idx_servers_name" ON "servers" ("name");

CREATE TABLE "oncall" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "team" TEXT NOT NULL DEFAULT '',
    "role" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL DEFAULT '',
    "contact" TEXT NOT NULL DEFAULT '',
    "timeWindow" TEXT NOT NULL DEFAULT '',
    "sortOrder" REAL NOT NULL DEFAULT 0,
    "teamId" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_oncall_created" ON "oncall" ("created");
CREATE INDEX "idx_oncall_teamId" ON "oncall" ("teamId");

CREATE TABLE "bridge_groups" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "contacts" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("contacts"))
);
CREATE INDEX "idx_bridge_groups_created" ON "bridge_groups" ("created");

CREATE TABLE "bridge_history" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "groups" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("groups")),
    "contacts" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("contacts")),
    "recipientCount" REAL NOT NULL DEFAULT 0
);
CREATE INDEX "idx_bridge_history_created" ON "bridge_history" ("created");

CREATE TABLE "alert_history" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "severity" TEXT NOT NULL DEFAULT '',
    "subject" TEXT NOT NULL DEFAULT '',
    "bodyHtml" TEXT NOT NULL DEFAULT '',
    "sender" TEXT NOT NULL DEFAULT '',
    "recipient" TEXT NOT NULL DEFAULT '',
    "pinned" INTEGER NOT NULL DEFAULT 0 CHECK ("pinned" IN (0, 1)),
    "label" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_alert_history_created" ON "alert_history" ("created");
CREATE INDEX "idx_alert_history_pinned" ON "alert_history" ("pinned");

CREATE TABLE "alert_reminders" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "note" TEXT NOT NULL DEFAULT '',
    "dueAt" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT '',
    "snoozeUntil" TEXT NOT NULL DEFAULT '',
    "severity" TEXT NOT NULL DEFAULT '',
    "alertSubject" TEXT NOT NULL DEFAULT '',
    "alertBodyHtml" TEXT NOT NULL DEFAULT '',
    "createdBy" TEXT NOT NULL DEFAULT '',
    "completedAt" TEXT NOT NULL DEFAULT '',
    "dismissedAt" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_alert_reminders_created" ON "alert_reminders" ("created");
CREATE INDEX "idx_alert_reminders_status" ON "alert_reminders" ("status");

CREATE TABLE "notes" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "entityType" TEXT NOT NULL DEFAULT '',
    "entityKey" TEXT NOT NULL DEFAULT '',
    "note" TEXT NOT NULL DEFAULT '',
    "tags" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("tags"))
);
CREATE INDEX "idx_notes_created" ON "notes" ("created");
CREATE INDEX "idx_notes_entityKey" ON "notes" ("entityKey");

CREATE TABLE "standalone_notes" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL DEFAULT '',
    "color" TEXT NOT NULL DEFAULT '',
    "tags" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("tags")),
    "sortOrder" REAL NOT NULL DEFAULT 0
);
CREATE INDEX "idx_standalone_notes_created" ON "standalone_notes" ("created");

CREATE TABLE "oncall_dismissals" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "alertType" TEXT NOT NULL DEFAULT '',
    "dateKey" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_oncall_dismissals_created" ON "oncall_dismissals" ("created");

CREATE TABLE "conflict_log" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "collection" TEXT NOT NULL DEFAULT '',
    "recordId" TEXT NOT NULL DEFAULT '',
    "overwrittenData" TEXT NOT NULL DEFAULT 'null' CHECK (json_valid("overwrittenData")),
    "overwrittenBy" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_conflict_log_created" ON "conflict_log" ("created");

CREATE TABLE "oncall_board_settings" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "teamOrder" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("teamOrder")),
    "locked" INTEGER NOT NULL DEFAULT 0 CHECK ("locked" IN (0, 1))
);
CREATE INDEX "idx_oncall_board_settings_created" ON "oncall_board_settings" ("created");
CREATE UNIQUE INDEX "idx_oncall_board_settings_key" ON "oncall_board_settings" ("key");

CREATE TABLE "client_presence" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "hostname" TEXT NOT NULL DEFAULT '',
    "mode" TEXT NOT NULL DEFAULT '',
    "lastSeen" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_client_presence_created" ON "client_presence" ("created");
CREATE UNIQUE INDEX "idx_client_presence_session_id" ON "client_presence" ("sessionId");
CREATE INDEX "idx_client_presence_lastSeen" ON "client_presence" ("lastSeen");
