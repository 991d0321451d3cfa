//! Reading passwords and passphrases for CLI commands: a hidden prompt on a terminal, one line
//! from standard input otherwise (for scripts). Secrets are never accepted as command-line
//! arguments, where other local users could read them from the process list.

use std::io::{BufRead, IsTerminal};

pub fn read_secret(prompt: &str) -> std::io::Result<String> {
    if std::io::stdin().is_terminal() {
        return rpassword::prompt_password(prompt);
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}
