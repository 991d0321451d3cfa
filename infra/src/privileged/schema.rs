//! Diesel table definitions for the server-internal privileged tables created by migration
//! `2026-12-02-000002_privileged`.

diesel::table! {
    relay_privileged_accounts (id) {
        id -> Text,
        username -> Text,
        display_name -> Text,
        kind -> Text,
        active -> Bool,
        password_hash -> Nullable<Text>,
        credential_version -> BigInt,
        created_ms -> BigInt,
        updated_ms -> BigInt,
    }
}

diesel::table! {
    relay_privileged_state (singleton) {
        singleton -> BigInt,
        owner_account_id -> Text,
        publisher_account_id -> Nullable<Text>,
        revision -> BigInt,
    }
}

diesel::table! {
    relay_devices (id) {
        id -> Text,
        account_id -> Text,
        label -> Text,
        hostname -> Text,
        public_jwk -> Text,
        fingerprint -> Text,
        state -> Text,
        revision -> BigInt,
        created_ms -> BigInt,
        updated_ms -> BigInt,
    }
}

diesel::table! {
    relay_pairing_challenges (id) {
        id -> Text,
        account_id -> Text,
        secret -> Binary,
        code_mac -> Binary,
        label -> Text,
        expires_ms -> BigInt,
        failures -> BigInt,
        state -> Text,
        created_ms -> BigInt,
    }
}

diesel::table! {
    relay_privileged_requests (request_id) {
        request_id -> Text,
        account_id -> Text,
        device_id -> Text,
        command -> Text,
        payload_hash -> Text,
        status -> Text,
        result -> Nullable<Text>,
        error -> Nullable<Text>,
        created_ms -> BigInt,
        finished_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    relay_reauth_proofs (id) {
        id -> Text,
        account_id -> Text,
        device_id -> Text,
        expires_ms -> BigInt,
        used -> Bool,
    }
}

diesel::table! {
    relay_audit_log (seq) {
        seq -> BigInt,
        entry -> Text,
    }
}

diesel::table! {
    relay_audit_head (singleton) {
        singleton -> BigInt,
        seq -> BigInt,
        hash -> Text,
    }
}
