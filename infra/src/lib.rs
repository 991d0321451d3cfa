//! Relay's IO layer: the SQLite store behind Diesel and an r2d2 pool (with embedded migrations
//! from `migrations/`), compilation of parsed filters into bound SQL, the data directory and its
//! owner-only secret files, random identifiers, the clock, auth-token signing, the alert-body
//! HTML sanitizer every stored body goes through (`html`), the redacting log sink, the backup
//! archive IO (`backup`: store snapshot, archive writer, disposable-restore verifier, health
//! file), the image pipeline and logo files (`images`), the one outbound HTTP policy (`http`)
//! every call to the outside goes through, a paired device's privileged protocol
//! (`device_client`), the status feeds (`status_feeds`)
//! fetched and parsed under it, the Radar page parser and read (`radar`), and the Dynatrace
//! settings, token vault and Grail client (`dynatrace`), the bounded worker processes
//! (`worker`), the Wiki's PDF extraction that runs in one (`wiki`), and the desktop
//! updater's discovery, verified download, staging and preparation (`updater`), and the
//! recovery launcher's managed root, catalog, snapshots and transitions (`recovery`).
//! Actors own these resources; nothing here keeps global mutable state.

pub mod backup;
pub mod clock;
pub mod control_socket;
pub mod datadir;
pub mod db;
pub mod device_client;
pub mod dir_lock;
pub mod dynatrace;
pub mod fault;
pub mod headless_secrets;
pub mod html;
pub mod http;
pub mod ids;
pub mod images;
pub mod import;
pub mod import_body;
pub mod logging;
pub mod offline_store;
pub mod password;
pub mod privileged;
pub mod process_limits;
pub mod radar;
pub mod rate_limits;
pub mod recovery;
pub mod relay_client;
pub mod secret_store;
pub mod server_passphrase;
pub mod spreadsheet;
pub mod sql;
pub mod startup;
pub mod status_feeds;
pub mod store;
pub mod systemd_credentials;
pub mod token;
pub mod updater;
pub mod wiki;
pub mod worker;
