-- Authoritative rate-limit state that must survive a restart (failed sign-ins, privileged
-- reauthentication and pairing): only partly drained buckets are kept, each scope bounded by
-- its limiter's tracked-key cap. Server-internal: not in the record API allowlist.
CREATE TABLE relay_rate_limits (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "tokens" REAL NOT NULL,
    "last_ms" INTEGER NOT NULL,
    PRIMARY KEY ("scope", "key")
);
