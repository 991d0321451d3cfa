DROP TABLE IF EXISTS "cloud_status_notices";
DROP TABLE IF EXISTS "cloud_status";
