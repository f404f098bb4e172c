//! Running the external programs, and writing to the terminal.

use std::fmt::Display;
use std::io::Write as _;
use std::process::Stdio;

use anyhow::{Context as _, bail};
use tokio::process::Command;

/// A progress line on stderr, so stdout holds only the table.
pub fn say(line: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The result, on stdout.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Fails early, with what to install, when `name` is not on the PATH.
pub fn require(name: &str) -> anyhow::Result<()> {
    let found =
        std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()));
    if !found {
        let hint = match name {
            "wrk" => "apt-get install wrk",
            _ => "apt-get install postgresql-client",
        };
        bail!("`{name}` is not on the PATH ({hint})");
    }
    Ok(())
}

/// Runs `command` to the end and answers its stdout; a failure carries its stderr.
pub async fn output(command: &mut Command, what: &str) -> anyhow::Result<String> {
    let output =
        command.stdin(Stdio::null()).kill_on_drop(true).output().await.with_context(|| format!("cannot run {what}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        match stderr.trim() {
            "" => bail!("{what} failed ({}) and printed nothing on stderr", output.status),
            stderr => bail!("{what} failed ({}): {stderr}", output.status),
        }
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `text` cut to at most `max` characters, for error messages.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
