DROP TABLE IF EXISTS relay_audit_head;
DROP TABLE IF EXISTS relay_audit_log;
DROP TABLE IF EXISTS relay_reauth_proofs;
DROP TABLE IF EXISTS relay_privileged_requests;
DROP TABLE IF EXISTS relay_pairing_challenges;
DROP TABLE IF EXISTS relay_devices;
DROP TABLE IF EXISTS relay_privileged_state;
DROP TABLE IF EXISTS relay_privileged_accounts;
