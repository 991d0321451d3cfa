DROP TRIGGER IF EXISTS "oncall_history_on_delete";
DROP TRIGGER IF EXISTS "oncall_history_on_update";
DROP TRIGGER IF EXISTS "oncall_history_on_create";
DROP TABLE IF EXISTS "oncall_history";
