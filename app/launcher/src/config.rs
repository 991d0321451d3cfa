//! What the launcher reads from its command line and environment: the data directory
//! (`--data-dir <path>` or `RELAY_DATA_DIR`, absolute, passed on to every runtime), the managed
//! root (`$XDG_DATA_HOME/relay`, else `~/.local/share/relay`), and, in debug builds only, two
//! test overrides: `RELAY_TEST_LAUNCHER_TIME_SCALE=<1..=1000>` runs the probation clock that
//! many times faster (the domain's 60 s / 195 s rules stay untouched; a scale of 100 makes them
//! 0.6 s / 1.95 s of real time), and `RELAY_TEST_LAUNCHER_OPENER=<program>` replaces `xdg-open`
//! for the releases page. Release builds compile both out and never read them.

use std::ffi::OsString;
use std::path::PathBuf;

/// How long a healthy candidate may go without a heartbeat before its health window restarts
/// (probation milliseconds, scaled like the rest of the probation clock).
pub const HEARTBEAT_STALE_MS: u64 = 20_000;
/// Runtime exit code meaning "a candidate was installed; restart into it".
pub const HANDOFF_EXIT_CODE: i32 = 75;
/// Hand-offs followed in one launcher run.
pub const MAX_HANDOFFS: u32 = 3;

#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    pub managed_root: PathBuf,
    /// Probation milliseconds per real millisecond (1 in release builds).
    pub time_scale: u64,
    /// The program that opens the releases page.
    pub opener: OsString,
}

impl Config {
    /// Reads the command line (without the program name) and the environment.
    pub fn from_env(args: &[String]) -> Result<Config, String> {
        let data_dir = match args {
            [] => std::env::var_os("RELAY_DATA_DIR").map(PathBuf::from),
            [flag, path] if flag == "--data-dir" => Some(PathBuf::from(path)),
            _ => return Err("usage: relay-launcher [--data-dir <absolute path>]".into()),
        }
        .filter(|path| path.is_absolute())
        .ok_or("the data directory (--data-dir or RELAY_DATA_DIR) must be an absolute path")?;
        let managed_root = infra::recovery::managed_root_from(
            std::env::var_os("XDG_DATA_HOME").as_deref(),
            std::env::var_os("HOME").as_deref(),
        )
        .ok_or("no absolute XDG_DATA_HOME or HOME")?;
        Ok(Config { data_dir, managed_root, time_scale: time_scale(), opener: opener() })
    }
}

#[cfg(debug_assertions)]
fn time_scale() -> u64 {
    std::env::var("RELAY_TEST_LAUNCHER_TIME_SCALE")
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .filter(|scale| (1..=1000).contains(scale))
        .unwrap_or(1)
}

#[cfg(not(debug_assertions))]
fn time_scale() -> u64 {
    1
}

#[cfg(debug_assertions)]
fn opener() -> OsString {
    std::env::var_os("RELAY_TEST_LAUNCHER_OPENER").unwrap_or_else(|| "xdg-open".into())
}

#[cfg(not(debug_assertions))]
fn opener() -> OsString {
    "xdg-open".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn the_data_directory_must_be_absolute_and_nothing_else_is_accepted() {
        // HOME is set for every test run; XDG_DATA_HOME may or may not be.
        let config = Config::from_env(&args(&["--data-dir", "/srv/relay-data"])).unwrap();
        assert_eq!(config.data_dir, PathBuf::from("/srv/relay-data"));
        assert!(config.managed_root.ends_with("relay"));
        assert!(Config::from_env(&args(&["--data-dir", "relative/data"])).is_err());
        assert!(Config::from_env(&args(&["--data-dir"])).is_err());
        assert!(Config::from_env(&args(&["--data-dir", "/a", "--exec", "/bin/sh"])).is_err());
        assert!(Config::from_env(&args(&["/srv/relay-data"])).is_err());
    }
}
