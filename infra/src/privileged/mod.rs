//! Storage for protected identity and privileged commands: accounts and the singleton authority
//! record, paired devices (public keys only), pairing challenges, claimed request ids with their
//! bounded outcomes, reauthentication proofs and the hash-chained audit log. Typed Diesel
//! queries over server-internal `relay_*` tables; every function takes the caller's connection
//! so the privileged actor can compose several steps in one transaction.

mod accounts;
mod audit;
mod devices;
mod legacy;
mod requests;
pub mod schema;

pub use accounts::*;
pub use audit::*;
pub use devices::*;
pub use legacy::*;
pub use requests::*;

/// Result type of this module; errors are Diesel's.
pub type DbResult<T> = Result<T, diesel::result::Error>;
