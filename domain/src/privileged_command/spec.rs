//! The shape of one privileged command's row: every property the pipeline, the policy and the
//! entry points read of a command, together in one value (as ripgrep's `flags/defs.rs` keeps
//! every property of one flag together). The rows themselves are the registration lists
//! `PrivilegedCommand::SPECS` and `WikiCommand::SPECS`; a parsed command finds its row with
//! `PrivilegedCommand::spec`. This module holds only the shape, so the Wiki's rows and the
//! other commands' rows can both name it without importing each other.

use crate::roles::Capability;

/// Which revision a command's expected revision is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// An expected revision, when one is sent, must be the authority record's; none is needed.
    AuthorityIfSent,
    /// The authority record's revision is required: the command changes who holds authority.
    Authority,
    /// The Dynatrace settings' revision is required: the command changes them.
    Dynatrace,
}

/// Every property of one command. Build a row with [`CommandSpec::new`] and the setters below;
/// what a row does not set is the common case (any origin but the web, no revision required,
/// no fresh password).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    /// The canonical (wire) name, which is also the serde tag.
    pub name: &'static str,
    /// The capability every use needs (`policy::authorize` may need more for some targets).
    pub capability: Capability,
    /// Only on the server PC (its local session, the `relay` CLI): a signed envelope naming the
    /// command is refused.
    pub local_only: bool,
    /// A browser may run it through Relay Web's protected session.
    pub on_the_web: bool,
    /// What an expected revision is checked against.
    pub revision: Revision,
    /// Needs a fresh password: a proof from a laptop, a password checked within 5 minutes on
    /// the server PC, one confirmation per command on the web.
    pub fresh_password: bool,
}

impl CommandSpec {
    /// A row with the common case for everything but `name` and `capability`.
    pub const fn new(name: &'static str, capability: Capability) -> CommandSpec {
        CommandSpec {
            name,
            capability,
            local_only: false,
            on_the_web: false,
            revision: Revision::AuthorityIfSent,
            fresh_password: false,
        }
    }

    pub const fn local_only(self) -> CommandSpec {
        CommandSpec { local_only: true, ..self }
    }

    pub const fn on_the_web(self) -> CommandSpec {
        CommandSpec { on_the_web: true, ..self }
    }

    pub const fn revision(self, revision: Revision) -> CommandSpec {
        CommandSpec { revision, ..self }
    }

    pub const fn fresh_password(self) -> CommandSpec {
        CommandSpec { fresh_password: true, ..self }
    }
}

/// The names of `rows`, in order: the allowlists (`NAMES`) derived from the registration lists.
pub const fn names<const N: usize>(rows: [CommandSpec; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = rows[i].name;
        i += 1;
    }
    out
}
