//! What the launcher reads from its command line and environment. Three command lines, parsed
//! strictly (anything else is the usage, exit 2): the run, `relay-launcher [--data-dir <path>]`;
//! the recovery entry's run, `relay-launcher recovery [--data-dir <path>]`, whose first start
//! prefers the newest retained build; and the one-time install of the first runtime, `relay-launcher install --runtime <path>
//! --version X.Y.Z --commit <40 hex>` (each flag exactly once, in any order; the version and
//! commit are checked here, before anything is created). The run reads the data directory
//! (`--data-dir <path>`, else `RELAY_DATA_DIR`, absolute, else the default
//! `$XDG_DATA_HOME/relay-desktop` (`~/.local/share/relay-desktop`), the directory the packaged
//! menu entries use; passed on to every runtime) and the packaged seed's directory beside the
//! launcher (`crate::seed`); both use the managed root (`$XDG_DATA_HOME/relay`, else
//! `~/.local/share/relay`). In debug builds only, the
//! run also reads two test overrides: `RELAY_TEST_LAUNCHER_TIME_SCALE=<1..=1000>` runs the
//! probation clock that many times faster (the domain's 60 s / 195 s rules stay untouched; a
//! scale of 100 makes them 0.6 s / 1.95 s of real time), and
//! `RELAY_TEST_LAUNCHER_OPENER=<program>` replaces `xdg-open` for the releases page. Release
//! builds compile both out and never read them.

use std::ffi::OsString;
use std::path::PathBuf;

use domain::updater::{CommitSha, Version};

pub const USAGE: &str = "usage: relay-launcher [--data-dir <absolute path>]\n       \
    relay-launcher recovery [--data-dir <absolute path>]\n       \
    relay-launcher install --runtime <path to relay-desktop> --version <X.Y.Z> --commit <40 lowercase hex>";

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
    /// `relay-launcher recovery`: the first start prefers the newest retained build that
    /// verifies (the Owner reaches Administration → Recovery when the current build starts but
    /// is broken); the catalog is not changed by it.
    pub prefer_retained: bool,
    /// Where a packaged seed build would be (`<prefix>/lib/relay-desktop`, `crate::seed`).
    pub seed_dir: Option<PathBuf>,
}

/// What one invocation does.
#[derive(Debug)]
pub enum Invocation {
    Run(Config),
    Install(Install),
}

/// `relay-launcher install`'s inputs.
#[derive(Debug, Clone)]
pub struct Install {
    pub runtime: PathBuf,
    pub version: Version,
    pub commit: CommitSha,
    pub managed_root: PathBuf,
}

impl Invocation {
    /// Reads the command line (without the program name) and the environment.
    pub fn from_env(args: &[String]) -> Result<Invocation, String> {
        match args.split_first() {
            Some((command, rest)) if command == "install" => Install::from_args(rest).map(Invocation::Install),
            Some((command, rest)) if command == "recovery" => {
                Config::from_env(rest).map(|config| Invocation::Run(Config { prefer_retained: true, ..config }))
            }
            _ => Config::from_env(args).map(Invocation::Run),
        }
    }
}

impl Install {
    fn from_args(args: &[String]) -> Result<Install, String> {
        let (mut runtime, mut version, mut commit) = (None, None, None);
        let mut rest = args;
        while let [flag, value, tail @ ..] = rest {
            let slot = match flag.as_str() {
                "--runtime" => &mut runtime,
                "--version" => &mut version,
                "--commit" => &mut commit,
                _ => return Err(USAGE.into()),
            };
            if slot.replace(value.as_str()).is_some() {
                return Err(USAGE.into());
            }
            rest = tail;
        }
        let (false, Some(runtime), Some(version), Some(commit)) = (!rest.is_empty(), runtime, version, commit) else {
            return Err(USAGE.into());
        };
        let (version, commit) = infra::recovery::parse_release(version, commit).map_err(|error| error.to_string())?;
        Ok(Install { runtime: PathBuf::from(runtime), version, commit, managed_root: managed_root()? })
    }
}

fn managed_root() -> Result<PathBuf, String> {
    infra::recovery::managed_root_from(
        std::env::var_os("XDG_DATA_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
    .ok_or_else(|| "no absolute XDG_DATA_HOME or HOME".into())
}

/// The data directory a run without `--data-dir` or `RELAY_DATA_DIR` uses: `relay-desktop`
/// beside the managed root (`$XDG_DATA_HOME/relay-desktop`, `scripts/install-desktop.sh`'s default).
pub fn default_data_dir(managed_root: &std::path::Path) -> Option<PathBuf> {
    Some(managed_root.parent()?.join("relay-desktop"))
}

impl Config {
    /// Reads the run's command line (without the program name) and the environment.
    pub fn from_env(args: &[String]) -> Result<Config, String> {
        let managed_root = managed_root()?;
        let data_dir = match args {
            [] => std::env::var_os("RELAY_DATA_DIR").map(PathBuf::from).or_else(|| default_data_dir(&managed_root)),
            [flag, path] if flag == "--data-dir" => Some(PathBuf::from(path)),
            _ => return Err(USAGE.into()),
        }
        .filter(|path| path.is_absolute())
        .ok_or("the data directory (--data-dir or RELAY_DATA_DIR) must be an absolute path")?;
        Ok(Config {
            data_dir,
            managed_root,
            time_scale: time_scale(),
            opener: opener(),
            prefer_retained: false,
            seed_dir: std::env::current_exe().ok().and_then(|exe| crate::seed::seed_dir_for(&exe)),
        })
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
        let Ok(Invocation::Run(plain)) = Invocation::from_env(&args(&["--data-dir", "/srv/relay-data"])) else {
            panic!("the run parses")
        };
        assert!(!plain.prefer_retained);
        assert!(plain.seed_dir.is_some_and(|dir| dir.ends_with("lib/relay-desktop")));
    }

    #[test]
    fn without_a_data_directory_the_run_uses_relay_desktop_beside_the_managed_root() {
        assert_eq!(
            default_data_dir(std::path::Path::new("/home/ops/.local/share/relay")),
            Some(PathBuf::from("/home/ops/.local/share/relay-desktop"))
        );
        assert_eq!(default_data_dir(std::path::Path::new("/")), None);
    }

    #[test]
    fn the_recovery_entry_is_the_run_preferring_a_retained_build() {
        let Ok(Invocation::Run(config)) = Invocation::from_env(&args(&["recovery", "--data-dir", "/srv/relay-data"]))
        else {
            panic!("the recovery run parses")
        };
        assert!(config.prefer_retained);
        assert_eq!(config.data_dir, PathBuf::from("/srv/relay-data"));
        for refused in [&["recovery", "--data-dir"][..], &["recovery", "/srv/x"], &["--data-dir", "/d", "recovery"]] {
            assert!(Invocation::from_env(&args(refused)).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn install_takes_each_flag_once_and_a_valid_release() {
        let commit = "0123abcd".to_owned() + &"e".repeat(32);
        let ok = ["install", "--runtime", "/opt/relay-desktop", "--version", "1.2.3", "--commit", &commit];
        let Ok(Invocation::Install(install)) = Invocation::from_env(&args(&ok)) else { panic!("install parses") };
        assert_eq!(install.runtime, PathBuf::from("/opt/relay-desktop"));
        assert_eq!((install.version.to_string(), install.commit.to_hex()), ("1.2.3".to_owned(), commit.clone()));
        let reordered = ["install", "--commit", &commit, "--version", "1.2.3", "--runtime", "rel/relay-desktop"];
        assert!(matches!(Invocation::from_env(&args(&reordered)), Ok(Invocation::Install(_))));
        let refused: [&[&str]; 8] = [
            &["install"],
            &["install", "--runtime", "/r", "--version", "1.2.3"],
            &["install", "--runtime", "/r", "--version", "1.2.3", "--commit", &commit, "--runtime", "/s"],
            &["install", "--runtime", "/r", "--version", "1.2.3", "--commit", &commit, "--data-dir", "/d"],
            &["install", "--runtime", "/r", "--version", "1.2.3", "--commit", &commit, "extra"],
            &["install", "--runtime", "/r", "--version", "v1.2.3", "--commit", &commit],
            &["install", "--runtime", "/r", "--version", "1.2.3", "--commit", "0123abcd"],
            &["--data-dir", "/d", "install"],
        ];
        for case in refused {
            assert!(Invocation::from_env(&args(case)).is_err(), "{case:?}");
        }
    }
}
