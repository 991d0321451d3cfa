-- Protected identity and privileged commands. These relay_* tables are server-internal: they are
-- not in the record API allowlist, never published over realtime and never exported.
CREATE TABLE relay_privileged_accounts (
    "id" TEXT PRIMARY KEY NOT NULL,
    "username" TEXT NOT NULL UNIQUE,
    "display_name" TEXT NOT NULL,
    "kind" TEXT NOT NULL CHECK ("kind" IN ('administrator', 'publisher')),
    "active" INTEGER NOT NULL DEFAULT 0 CHECK ("active" IN (0, 1)),
    "password_hash" TEXT,
    "credential_version" INTEGER NOT NULL DEFAULT 0,
    "created_ms" INTEGER NOT NULL,
    "updated_ms" INTEGER NOT NULL
);

-- Singleton authority record: which Administrator is the Owner, which account (if any) is the Publisher.
CREATE TABLE relay_privileged_state (
    "singleton" INTEGER PRIMARY KEY NOT NULL CHECK ("singleton" = 1),
    "owner_account_id" TEXT NOT NULL REFERENCES relay_privileged_accounts ("id"),
    "publisher_account_id" TEXT REFERENCES relay_privileged_accounts ("id"),
    "revision" INTEGER NOT NULL
);

-- Paired devices: only the public key and presentation metadata are kept.
CREATE TABLE relay_devices (
    "id" TEXT PRIMARY KEY NOT NULL,
    "account_id" TEXT NOT NULL REFERENCES relay_privileged_accounts ("id"),
    "label" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "public_jwk" TEXT NOT NULL CHECK (json_valid("public_jwk")),
    "fingerprint" TEXT NOT NULL UNIQUE,
    "state" TEXT NOT NULL CHECK ("state" IN ('active', 'revoked')),
    "revision" INTEGER NOT NULL,
    "created_ms" INTEGER NOT NULL,
    "updated_ms" INTEGER NOT NULL
);
CREATE INDEX idx_relay_devices_account ON relay_devices ("account_id");

-- Pairing challenges: the code is stored only as an HMAC under a per-challenge secret.
CREATE TABLE relay_pairing_challenges (
    "id" TEXT PRIMARY KEY NOT NULL,
    "account_id" TEXT NOT NULL REFERENCES relay_privileged_accounts ("id"),
    "secret" BLOB NOT NULL,
    "code_mac" BLOB NOT NULL,
    "label" TEXT NOT NULL,
    "expires_ms" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL CHECK ("state" IN ('pending', 'used', 'locked')),
    "created_ms" INTEGER NOT NULL
);
CREATE INDEX idx_relay_pairing_account ON relay_pairing_challenges ("account_id", "state");

-- Claimed request ids: signed bodies are never stored, only their payload hash and a bounded outcome.
CREATE TABLE relay_privileged_requests (
    "request_id" TEXT PRIMARY KEY NOT NULL,
    "account_id" TEXT NOT NULL,
    "device_id" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "payload_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL CHECK ("status" IN ('running', 'done', 'failed')),
    "result" TEXT,
    "error" TEXT,
    "created_ms" INTEGER NOT NULL,
    "finished_ms" INTEGER
);

-- Fresh-password reauthentication proofs: account- and device-bound, short-lived, single use.
CREATE TABLE relay_reauth_proofs (
    "id" TEXT PRIMARY KEY NOT NULL,
    "account_id" TEXT NOT NULL,
    "device_id" TEXT NOT NULL,
    "expires_ms" INTEGER NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0 CHECK ("used" IN (0, 1))
);

-- Hash-chained audit log of privileged commands plus its head (detects tail truncation).
CREATE TABLE relay_audit_log (
    "seq" INTEGER PRIMARY KEY NOT NULL,
    "entry" TEXT NOT NULL CHECK (json_valid("entry"))
);
CREATE TABLE relay_audit_head (
    "singleton" INTEGER PRIMARY KEY NOT NULL CHECK ("singleton" = 1),
    "seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL
);
