//! Process limits a server raises at start. A server holds one descriptor per client connection,
//! realtime stream, SQLite connection and open Wiki PDF, and systemd and most login sessions start
//! it with a soft `RLIMIT_NOFILE` of 1024 under a much higher hard limit; [`raise_open_files_limit`]
//! lifts the soft limit to the hard one (never above the kernel's `fs.nr_open`), which needs no
//! privilege, so a busy server does not fail with "too many open files" long before it must.

/// The open-file limits before and after [`raise_open_files_limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFilesLimit {
    pub before: u64,
    pub after: u64,
}

impl OpenFilesLimit {
    pub fn raised(&self) -> bool {
        self.after > self.before
    }
}

fn get_nofile() -> std::io::Result<libc::rlimit> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `limit` is a valid, writable rlimit for the call's duration.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(limit)
}

/// The kernel's ceiling for any open-file limit (`/proc/sys/fs/nr_open`), when readable.
fn kernel_ceiling() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/fs/nr_open").ok()?.trim().parse().ok()
}

/// Raises this process's soft `RLIMIT_NOFILE` to its hard limit (capped by `fs.nr_open` when the
/// hard limit is unlimited). A soft limit already there is left alone.
pub fn raise_open_files_limit() -> std::io::Result<OpenFilesLimit> {
    let limit = get_nofile()?;
    let before = limit.rlim_cur as u64;
    let mut target = limit.rlim_max;
    if target == libc::RLIM_INFINITY {
        target = kernel_ceiling().map_or(limit.rlim_cur, |c| c as libc::rlim_t);
    }
    if target <= limit.rlim_cur {
        return Ok(OpenFilesLimit { before, after: before });
    }
    let raised = libc::rlimit { rlim_cur: target, rlim_max: limit.rlim_max };
    // SAFETY: `raised` is a valid rlimit; the kernel only reads it.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(OpenFilesLimit { before, after: get_nofile()?.rlim_cur as u64 })
}

/// [`raise_open_files_limit`] with its outcome logged: the change, or why it could not be made.
pub fn raise_open_files_limit_logged() {
    match raise_open_files_limit() {
        Ok(limit) if limit.raised() => {
            tracing::info!(before = limit.before, after = limit.after, "raised the open-file limit to the hard limit")
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not raise the open-file limit"),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Never lowered here (other tests share this process's limit): raising is idempotent and
    /// ends at the hard limit. `blackbox::lifecycle` starts `relay serve` under a low soft limit.
    #[test]
    fn the_soft_limit_ends_at_the_hard_limit() {
        let hard = get_nofile().unwrap().rlim_max;
        let outcome = raise_open_files_limit().unwrap();
        let now = get_nofile().unwrap();
        assert_eq!(outcome.after, now.rlim_cur as u64);
        if hard != libc::RLIM_INFINITY {
            assert_eq!(now.rlim_cur, hard, "soft = hard");
        }
        assert_eq!(raise_open_files_limit().unwrap(), OpenFilesLimit { before: outcome.after, after: outcome.after });
    }
}
