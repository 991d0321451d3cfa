DROP INDEX "idx_alert_history_thread_update";
ALTER TABLE "alert_history" DROP COLUMN "timeZone";
ALTER TABLE "alert_history" DROP COLUMN "eventEnd";
ALTER TABLE "alert_history" DROP COLUMN "eventStart";
ALTER TABLE "alert_history" DROP COLUMN "updateNumber";
ALTER TABLE "alert_history" DROP COLUMN "threadId";
