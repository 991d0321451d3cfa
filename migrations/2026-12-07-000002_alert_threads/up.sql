-- Alert threads (issue #38 item 7b): an alert and its updates are one thread of alert_history
-- rows, one per send. `threadId` is the first send's id and `updateNumber` its place in the
-- thread (0 first), both assigned by the server when the row is created; the event times are
-- instants and `timeZone` the zone they were entered in. Columns are added with defaults, so an
-- existing database keeps every row: a row with an empty `threadId` is a single-send thread
-- (its own id, number 0). The partial unique index keeps one number per send within a thread.
ALTER TABLE "alert_history" ADD COLUMN "threadId" TEXT NOT NULL DEFAULT '';
ALTER TABLE "alert_history" ADD COLUMN "updateNumber" REAL NOT NULL DEFAULT 0;
ALTER TABLE "alert_history" ADD COLUMN "eventStart" TEXT NOT NULL DEFAULT '';
ALTER TABLE "alert_history" ADD COLUMN "eventEnd" TEXT NOT NULL DEFAULT '';
ALTER TABLE "alert_history" ADD COLUMN "timeZone" TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX "idx_alert_history_thread_update" ON "alert_history" ("threadId", "updateNumber")
    WHERE "threadId" <> '';
