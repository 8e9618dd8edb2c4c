//! The pairing token: where the server gets it, and how a person saves it. Not on the command
//! line by default (every user of the computer can read a process's arguments, `ps`), and not
//! in an MCP client's config file (people commit `.mcp.json`): from `SIGHTLINE_TOKEN` or a file
//! only its owner can read (`~/.config/sightline/token`, written by `--save-token`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The pairing token; its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A token as given: surrounding whitespace (a pasted newline) dropped; empty is none.
    pub fn new(text: &str) -> Option<Token> {
        let t = text.trim();
        (!t.is_empty()).then(|| Token(t.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this token, compared without stopping at the first difference.
    pub fn matches(&self, given: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), given.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// Where the token comes from, in the order the server looks: `--token`, `--token-file`,
/// `SIGHTLINE_TOKEN`, the default file.
#[derive(Debug, PartialEq)]
pub enum Source {
    /// `--token`: works, with a warning.
    Argument(String),
    Environment(String),
    /// A file: `--token-file` (`explicit`) or the default one.
    File {
        path: PathBuf,
        explicit: bool,
    },
    /// No file could be named (no home folder): only the other ways remain.
    Nowhere,
}

/// The warning `--token` gets.
pub const ARGUMENT_WARNING: &str = "--token puts the pairing token where every user of this computer can read it \
     (ps, /proc/PID/cmdline): save it once with `sightline-mcp --save-token` (or set SIGHTLINE_TOKEN) and leave --token out";

/// The default token file: `$XDG_CONFIG_HOME/sightline/token`, else `~/.config/sightline/token`
/// (`%APPDATA%\sightline\token` on Windows).
pub fn default_file(env: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let config = absolute(env("XDG_CONFIG_HOME"))
        .or_else(|| absolute(env("HOME")).map(|h| h.join(".config")))
        .or_else(|| absolute(env("APPDATA")))?;
    Some(config.join("sightline").join("token"))
}

/// Why the token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error(
        "the pairing token is missing: turn on Allow agents in Sightline's panel, then save its token once with \
         `sightline-mcp --save-token` (it asks for it; kept in {0}), or set SIGHTLINE_TOKEN"
    )]
    Missing(String),
    #[error("cannot read the token file {0}: {1}")]
    Unreadable(String, String),
    #[error(
        "the token file {path} can be read by other users (mode {mode:03o}): run `chmod 600 {path}`, or save the \
         token again with `sightline-mcp --save-token`"
    )]
    Exposed { path: String, mode: u32 },
    #[error("the token file {0} is empty: save the panel's token with `sightline-mcp --save-token`")]
    Empty(String),
    #[error("cannot save the token in {0}: {1}")]
    Unwritable(String, String),
}

/// The token from `source`.
pub fn load(source: Source) -> Result<Token, TokenError> {
    match source {
        Source::Argument(t) | Source::Environment(t) => {
            Token::new(&t).ok_or_else(|| TokenError::Missing("a file named with --token-file".into()))
        }
        Source::Nowhere => Err(TokenError::Missing("a file named with --token-file".into())),
        Source::File { path, explicit } => {
            let shown = path.display().to_string();
            let metadata = match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
                    return Err(TokenError::Missing(shown));
                }
                Err(e) => return Err(TokenError::Unreadable(shown, e.to_string())),
            };
            private(&path, &metadata)?;
            let text =
                std::fs::read_to_string(&path).map_err(|e| TokenError::Unreadable(shown.clone(), e.to_string()))?;
            Token::new(&text).ok_or(TokenError::Empty(shown))
        }
    }
}

/// Refuses a token file that its group or other users may read or write.
#[cfg(unix)]
fn private(path: &Path, metadata: &std::fs::Metadata) -> Result<(), TokenError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(TokenError::Exposed { path: path.display().to_string(), mode });
    }
    Ok(())
}

#[cfg(not(unix))]
fn private(_: &Path, _: &std::fs::Metadata) -> Result<(), TokenError> {
    Ok(())
}

/// Saves `token` in `path`, readable by its owner only (0600; its folder made 0700 if new).
pub fn save(path: &Path, token: &Token) -> Result<(), TokenError> {
    let shown = || path.display().to_string();
    let fail = |e: std::io::Error| TokenError::Unwritable(shown(), e.to_string());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(fail)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(fail)?;
    // A file that was there already keeps its mode through open: made private before the token goes in.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
    }
    file.write_all(format!("{}\n", token.as_str()).as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder of this test's own under the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sightline-mcp-token-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_saved_token_is_private_and_read_back() {
        let dir = scratch("save");
        let path = dir.join("sightline").join("token");
        save(&path, &Token::new("tok-123\n").unwrap()).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
        }
        let token = load(Source::File { path: path.clone(), explicit: true }).unwrap();
        assert_eq!(token.as_str(), "tok-123");
        assert_eq!(format!("{token:?}"), "Token(…)", "Debug never shows it");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_is_refused_and_saving_again_makes_it_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("exposed");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "tok-456\n").unwrap();
        for mode in [0o644, 0o640, 0o604, 0o660, 0o602] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let err = load(Source::File { path: path.clone(), explicit: false }).unwrap_err();
            assert!(matches!(err, TokenError::Exposed { .. }), "{mode:o}: {err}");
            assert!(err.to_string().contains("chmod 600"), "{err}");
        }
        save(&path, &Token::new("tok-789").unwrap()).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(load(Source::File { path, explicit: false }).unwrap().as_str(), "tok-789");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_or_empty_token_says_how_to_save_one() {
        let dir = scratch("missing");
        let path = dir.join("token");
        let err = load(Source::File { path: path.clone(), explicit: false }).unwrap_err();
        assert!(matches!(err, TokenError::Missing(_)) && err.to_string().contains("--save-token"), "{err}");
        // Named with --token-file, a missing file is an error about that file.
        assert!(matches!(load(Source::File { path: path.clone(), explicit: true }), Err(TokenError::Unreadable(..))));
        save(&path, &Token::new("x").unwrap()).unwrap();
        std::fs::write(&path, "  \n").unwrap();
        assert!(matches!(load(Source::File { path, explicit: true }), Err(TokenError::Empty(_))));
        assert!(load(Source::Environment(" ".into())).is_err());
        assert_eq!(load(Source::Environment(" t \n".into())).unwrap().as_str(), "t");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_default_file_is_under_the_users_config_folder() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(default_file(&env(&[("HOME", "/home/a")])), Some(PathBuf::from("/home/a/.config/sightline/token")));
        assert_eq!(
            default_file(&env(&[("HOME", "/home/a"), ("XDG_CONFIG_HOME", "/cfg")])),
            Some(PathBuf::from("/cfg/sightline/token"))
        );
        // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
        assert_eq!(
            default_file(&env(&[("HOME", "/home/a"), ("XDG_CONFIG_HOME", "cfg")])),
            Some(PathBuf::from("/home/a/.config/sightline/token"))
        );
        assert_eq!(default_file(&env(&[])), None);
    }

    #[test]
    fn tokens_match_only_exactly() {
        let t = Token::new("s3cret-token").unwrap();
        assert!(t.matches("s3cret-token"));
        assert!(!t.matches("s3cret-tokeN"));
        assert!(!t.matches("s3cret-token "));
        assert!(!t.matches(""));
    }
}
