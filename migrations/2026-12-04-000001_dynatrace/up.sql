-- Dynatrace Problems (dynatrace actor). `dynatrace_problems` and `dynatrace_problem_sync` are
-- server-owned (clients read them through the record API and realtime); operators write the
-- addressed state (create and update, never delete) and append notes. `relay_dynatrace_config` holds
-- the administrator's typed configuration (never the platform token, which lives in the secret
-- store) with the revision every change must name; it is not a collection.
CREATE TABLE "dynatrace_problems" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "problemId" TEXT NOT NULL DEFAULT '',
    "displayId" TEXT NOT NULL DEFAULT '',
    "title" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT '',
    "severity" TEXT NOT NULL DEFAULT '',
    "impactLevel" TEXT NOT NULL DEFAULT '',
    "startTime" TEXT NOT NULL DEFAULT '',
    "endTime" TEXT NOT NULL DEFAULT '',
    "rootCauseId" TEXT NOT NULL DEFAULT '',
    "rootCauseName" TEXT NOT NULL DEFAULT '',
    "affectedEntities" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("affectedEntities")),
    "alertingProfiles" TEXT NOT NULL DEFAULT '[]' CHECK (json_valid("alertingProfiles")),
    "emailSubject" TEXT NOT NULL DEFAULT '',
    "emailSubjectStatus" TEXT NOT NULL DEFAULT '',
    "environmentUrl" TEXT NOT NULL DEFAULT '',
    "syncedAt" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_dynatrace_problems_created" ON "dynatrace_problems" ("created");
CREATE UNIQUE INDEX "idx_dynatrace_problems_problemId" ON "dynatrace_problems" ("problemId");
CREATE INDEX "idx_dynatrace_problems_status_start" ON "dynatrace_problems" ("status", "startTime");

CREATE TABLE "dynatrace_problem_sync" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT '',
    "lastAttemptAt" TEXT NOT NULL DEFAULT '',
    "lastSuccessAt" TEXT NOT NULL DEFAULT '',
    "lastReconciledAt" TEXT NOT NULL DEFAULT '',
    "staleSince" TEXT NOT NULL DEFAULT '',
    "nextRetryAt" TEXT NOT NULL DEFAULT '',
    "error" TEXT NOT NULL DEFAULT '',
    "consecutiveFailures" REAL NOT NULL DEFAULT 0,
    "resultTruncated" INTEGER NOT NULL DEFAULT 0,
    "scopeSource" TEXT NOT NULL DEFAULT '',
    "openCount" REAL NOT NULL DEFAULT 0
);
CREATE INDEX "idx_dynatrace_problem_sync_created" ON "dynatrace_problem_sync" ("created");
CREATE UNIQUE INDEX "idx_dynatrace_problem_sync_key" ON "dynatrace_problem_sync" ("key");

CREATE TABLE "dynatrace_problem_states" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "problemId" TEXT NOT NULL DEFAULT '',
    "addressed" INTEGER NOT NULL DEFAULT 0,
    "addressedAt" TEXT NOT NULL DEFAULT '',
    "addressedBy" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_dynatrace_problem_states_created" ON "dynatrace_problem_states" ("created");
CREATE UNIQUE INDEX "idx_dynatrace_problem_states_problemId" ON "dynatrace_problem_states" ("problemId");

CREATE TABLE "dynatrace_problem_notes" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "problemId" TEXT NOT NULL DEFAULT '',
    "note" TEXT NOT NULL DEFAULT '',
    "author" TEXT NOT NULL DEFAULT ''
);
CREATE INDEX "idx_dynatrace_problem_notes_created" ON "dynatrace_problem_notes" ("created");
CREATE INDEX "idx_dynatrace_problem_notes_problemId" ON "dynatrace_problem_notes" ("problemId");

CREATE TABLE "relay_dynatrace_config" (
    "key" TEXT PRIMARY KEY NOT NULL CHECK ("key" = 'dynatrace'),
    "revision" INTEGER NOT NULL,
    "config" TEXT NOT NULL CHECK (json_valid("config")),
    "updated" TEXT NOT NULL
);
