//! How a server process starts, measured and kept small. [`begin`] (first thing in `main`)
//! fixes the moment the start is measured from and caps glibc's malloc arenas; [`mark`] logs
//! one debug line per start-up phase under the `relay::startup` target with the milliseconds
//! since then (`RELAY_LOG=warn,relay::startup=debug relay serve ...` prints the whole start:
//! data directory, secrets, migrations, pool, each subsystem, the listener). A mark costs one
//! filter check when that target is off. Once the start is over, [`release_start_up_code`]
//! unmaps the executable's run-once code pages. This module decides nothing about what starts
//! when; it only records, sets the allocator up and gives back the start's code pages.

use std::sync::OnceLock;
use std::time::Instant;

/// The log target of the phase lines.
pub const TARGET: &str = "relay::startup";

/// glibc malloc arenas a Relay process may use. glibc gives each thread that allocates while
/// the others' arenas are busy an arena of its own, up to eight per core; a server runs about
/// thirty threads (one per subsystem, the store's readers and writer, the HTTP workers), and
/// each arena keeps the pages it once used, so the idle process held several MiB in arenas
/// that served a single start-up allocation. Two arenas (one per core on the reference
/// machine) keep that bounded; every thread still has glibc's per-thread cache for small
/// allocations, so the lock behind it is rarely taken.
pub const MALLOC_ARENAS: i32 = 2;

static STARTED: OnceLock<Instant> = OnceLock::new();

/// The start of the measured start-up, and the allocator's settings. Call it first in `main`,
/// before any thread exists (the arena cap applies to arenas created after it).
pub fn begin() {
    STARTED.get_or_init(Instant::now);
    limit_malloc_arenas(MALLOC_ARENAS);
}

/// Caps glibc's malloc arenas (`mallopt(M_ARENA_MAX)`); an explicit `MALLOC_ARENA_MAX` in the
/// environment wins. Returns whether the cap was set. Other C libraries: nothing to do.
pub fn limit_malloc_arenas(arenas: i32) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
            return false;
        }
        // SAFETY: mallopt takes an option number and an int; M_ARENA_MAX accepts any positive
        // value at any time (it bounds arenas created afterwards).
        unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas.max(1)) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = arenas;
        false
    }
}

/// How long after the listener is up [`release_start_up_code`] runs: the subsystems' own
/// start-up (first store reads, first health reports) is over within milliseconds of it.
pub const START_SETTLE: std::time::Duration = std::time::Duration::from_millis(500);

/// Unmaps the pages of this executable's read-only code and constant data that the start mapped
/// (`MADV_DONTNEED`), and returns how many bytes were mapped. The kernel maps an executable's
/// pages in whole page-cache folios (often 64-128 KiB) around each first use, so the run-once
/// start-up code (argument parsing, migrations, secrets, every subsystem's constructor) left
/// most of the 20 MiB of code resident in the idle server. The pages stay in the page cache
/// and come back with a minor fault when code runs again, so only what the running server
/// uses is mapped afterwards, as the kernel frees its own init sections after boot. Only
/// mappings of the executable without a written page (no `Private_Dirty`, no `Anonymous`) are
/// touched: text and read-only data, never `.data` or the relocated read-only data, whose
/// pages differ from the file. Linux only; elsewhere nothing happens.
pub fn release_start_up_code() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let Some((exe, smaps)) = own_smaps() else {
            return 0;
        };
        let mut released = 0;
        for (start, end, rss) in clean_read_only_mappings(&smaps, &exe) {
            // SAFETY: the range is a whole mapping of the executable that is read-only and has
            // no page written since it was mapped, so dropping its pages loses nothing: they are
            // read back from the (immutable while executing) file on the next access.
            if unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) } == 0 {
                released += rss;
            }
        }
        tracing::debug!(target: TARGET, released_kib = released / 1024, "released the start-up code pages");
        released
    }
    #[cfg(not(target_os = "linux"))]
    0
}

/// The executable as smaps names it (`inode path`) and this process's smaps text.
#[cfg(target_os = "linux")]
fn own_smaps() -> Option<(String, String)> {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata("/proc/self/exe").ok()?.ino();
    let path = std::fs::read_link("/proc/self/exe").ok()?;
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    Some((format!("{inode} {}", path.display()), smaps))
}

/// `(start, end, resident bytes)` of the read-only mappings of the file `exe` (`inode path`,
/// as smaps names it) in an smaps text whose pages are all clean copies of the file.
fn clean_read_only_mappings(smaps: &str, exe: &str) -> Vec<(usize, usize, u64)> {
    let mut found = Vec::new();
    let mut current: Option<(usize, usize, bool)> = None;
    let (mut rss, mut written) = (0u64, false);
    let mut flush = |current: Option<(usize, usize, bool)>, rss: u64, written: bool| {
        if let Some((start, end, true)) = current {
            if !written {
                found.push((start, end, rss));
            }
        }
    };
    for line in smaps.lines() {
        let mut fields = line.split_whitespace();
        let first = fields.next().unwrap_or("");
        if let Some((start, end)) = first.split_once('-').filter(|_| !first.ends_with(':')) {
            flush(current.take(), rss, written);
            (rss, written) = (0, false);
            let perms = fields.next().unwrap_or("");
            let file: Vec<&str> = fields.skip(2).collect();
            let ours = file.join(" ") == exe && (perms == "r-xp" || perms == "r--p");
            if let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16)) {
                current = Some((start, end, ours));
            }
            continue;
        }
        let kib = fields.next().and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        match first {
            "Rss:" => rss = kib * 1024,
            "Private_Dirty:" | "Shared_Dirty:" | "Anonymous:" if kib > 0 => written = true,
            _ => {}
        }
    }
    flush(current, rss, written);
    found
}

/// Milliseconds since [`begin`] (0 before it).
pub fn elapsed_ms() -> f64 {
    STARTED.get().map(|t| t.elapsed().as_secs_f64() * 1e3).unwrap_or(0.0)
}

/// Logs that `phase` is done, at debug level under [`TARGET`].
pub fn mark(phase: &str) {
    if tracing::enabled!(target: TARGET, tracing::Level::DEBUG) {
        tracing::debug!(target: TARGET, phase, elapsed_ms = %format!("{:.2}", elapsed_ms()), "start-up");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
5600-5700 r--p 00000000 fe:00 42                         /opt/relay
Size:                  4 kB
Rss:                   4 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
5700-5900 r-xp 00100000 fe:00 42                         /opt/relay
Rss:                   8 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
5900-5a00 r--p 00300000 fe:00 42                         /opt/relay
Rss:                   4 kB
Private_Dirty:         4 kB
Anonymous:             4 kB
5a00-5b00 rw-p 00400000 fe:00 42                         /opt/relay
Rss:                   4 kB
Private_Dirty:         0 kB
6000-7000 r-xp 00000000 fe:00 77                         /usr/lib/libc.so.6
Rss:                  12 kB
Private_Dirty:         0 kB
";

    #[test]
    fn only_the_executables_clean_read_only_mappings_are_released() {
        let found = clean_read_only_mappings(SMAPS, "42 /opt/relay");
        // Not the relocated (written) read-only data, not .data, not another file's code.
        assert_eq!(found, vec![(0x5600, 0x5700, 4096), (0x5700, 0x5900, 8192)]);
        assert!(clean_read_only_mappings(SMAPS, "42 /opt/relay2").is_empty());
        assert!(clean_read_only_mappings(SMAPS, "77 /opt/relay").is_empty());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_running_executables_code_is_found_released_and_runs_again() {
        let (exe, smaps) = own_smaps().unwrap();
        let found = clean_read_only_mappings(&smaps, &exe);
        assert!(!found.is_empty(), "the test binary's text is a clean read-only mapping of {exe}");
        release_start_up_code();
        // This very test (and every other one running beside it) goes on in released code.
        assert_eq!(clean_read_only_mappings(SMAPS, "42 /opt/relay").len(), 2);
    }

    #[test]
    fn the_clock_runs_from_begin_and_the_arena_cap_is_accepted() {
        begin();
        let first = elapsed_ms();
        assert!(first >= 0.0);
        assert!(elapsed_ms() >= first);
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
            assert!(limit_malloc_arenas(MALLOC_ARENAS), "glibc accepts M_ARENA_MAX");
        }
        mark("test");
    }
}
