//! Tokens that guard the cluster: what a usable token is, the set of tokens a coordinator
//! accepts (one shared token, or one per worker from a file so a leaked one can be revoked),
//! and a comparison whose time does not depend on where a guess first differs.

use std::fmt;

use subtle::ConstantTimeEq;
use thiserror::Error;

/// Shortest token accepted: a short password can be guessed over the network.
pub const MIN_TOKEN_LEN: usize = 16;

/// The name of the one shared token (`--token`) among the accepted ones.
pub const SHARED_TOKEN_NAME: &str = "shared";

/// How to make a good token, for error messages.
pub const TOKEN_HINT: &str = "generate one with `openssl rand -hex 32`";

/// Why a token cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TokenError {
    /// Nothing (or only spaces) was given.
    #[error("the token is empty; {TOKEN_HINT}")]
    Empty,
    /// Too short to resist guessing.
    #[error("the token has {0} characters, fewer than {MIN_TOKEN_LEN}; {TOKEN_HINT}")]
    Short(usize),
    /// Spaces or control or non-ASCII characters cannot travel in a gRPC header.
    #[error("the token must be printable ASCII without spaces; {TOKEN_HINT}")]
    Characters,
    /// A line of a tokens file is not `NAME TOKEN`.
    #[error("line {line}: {why}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// So few distinct characters that it is easily guessed (`aaaaaaaaaaaaaaaa`).
    #[error("the token has only {0} distinct characters, fewer than {MIN_DISTINCT}; {TOKEN_HINT}")]
    Weak(usize),
    /// A tokens file without any token.
    #[error("no tokens in the file (expected lines `NAME TOKEN`)")]
    NoTokens,
}

/// Checks that `token` is long enough and can travel in a header.
pub fn validate_token(token: &str) -> Result<(), TokenError> {
    if token.trim().is_empty() {
        return Err(TokenError::Empty);
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(TokenError::Characters);
    }
    if token.len() < MIN_TOKEN_LEN {
        return Err(TokenError::Short(token.len()));
    }
    let mut seen = [false; 128];
    let distinct = token
        .bytes()
        .filter(|&b| !std::mem::replace(&mut seen[usize::from(b & 0x7f)], true))
        .count();
    if distinct < MIN_DISTINCT {
        return Err(TokenError::Weak(distinct));
    }
    Ok(())
}

/// Distinct characters a token needs at least (a random hex token of 16 has about 10).
pub const MIN_DISTINCT: usize = 6;

/// The tokens a coordinator accepts, each with a name for its logs.
#[derive(Clone, Default)]
pub struct TokenSet {
    entries: Vec<(String, Vec<u8>)>,
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the tokens themselves.
        let names: Vec<&str> = self.entries.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("TokenSet").field("names", &names).finish()
    }
}

impl TokenSet {
    /// The one shared token, named [`SHARED_TOKEN_NAME`].
    pub fn single(token: &str) -> Result<TokenSet, TokenError> {
        validate_token(token)?;
        Ok(TokenSet {
            entries: vec![(SHARED_TOKEN_NAME.into(), token.as_bytes().to_vec())],
        })
    }

    /// Reads a tokens file: one `NAME TOKEN` per line; blank lines and `#` comments skipped.
    pub fn parse_file(text: &str) -> Result<TokenSet, TokenError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = content.split_whitespace().collect();
            let [name, token] = fields[..] else {
                return Err(TokenError::Line {
                    line,
                    why: format!("expected `NAME TOKEN`, found {} fields", fields.len()),
                });
            };
            validate_token(token).map_err(|e| TokenError::Line {
                line,
                why: format!("token of {name}: {e}"),
            })?;
            if entries.iter().any(|(n, _)| n == name) {
                return Err(TokenError::Line {
                    line,
                    why: format!("the name {name} appears twice"),
                });
            }
            if let Some((other, _)) = entries.iter().find(|(_, t)| t == token.as_bytes()) {
                return Err(TokenError::Line {
                    line,
                    why: format!(
                        "{name} has the same token as {other}: each worker needs its own, or \
                         revoking one revokes both"
                    ),
                });
            }
            entries.push((name.to_string(), token.as_bytes().to_vec()));
        }
        if entries.is_empty() {
            return Err(TokenError::NoTokens);
        }
        Ok(TokenSet { entries })
    }

    /// Adds `other`'s tokens (a shared token next to per-worker ones).
    pub fn extend(&mut self, other: TokenSet) {
        self.entries.extend(other.entries);
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no token is accepted (then every call is refused).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The name of the token `given` is, comparing in constant time against every entry.
    pub fn check(&self, given: &[u8]) -> Option<&str> {
        let mut found = None;
        for (name, token) in &self.entries {
            // `ct_eq` on slices of different lengths is false without looking at content;
            // token lengths are not secret enough to matter.
            if bool::from(token.as_slice().ct_eq(given)) && found.is_none() {
                found = Some(name.as_str());
            }
        }
        found
    }

    /// The token inside an `authorization` header value: `Bearer TOKEN`, with TOKEN not empty.
    pub fn check_header(&self, header: &[u8]) -> Option<&str> {
        let token = header.strip_prefix(b"Bearer ")?;
        if token.is_empty() {
            return None;
        }
        self.check(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "0123456789abcdef0123";

    #[test]
    fn empty_blank_short_and_spaced_tokens_are_refused() {
        assert_eq!(validate_token(""), Err(TokenError::Empty));
        assert_eq!(validate_token("   "), Err(TokenError::Empty));
        assert_eq!(validate_token("abc"), Err(TokenError::Short(3)));
        assert_eq!(
            validate_token("0123456789 abcdef"),
            Err(TokenError::Characters)
        );
        assert_eq!(validate_token(GOOD), Ok(()));
    }

    #[test]
    fn bearer_with_nothing_after_it_matches_nothing() {
        let set = TokenSet::single(GOOD).unwrap();
        assert_eq!(set.check_header(b"Bearer "), None);
        assert_eq!(set.check_header(b""), None);
        assert_eq!(set.check_header(b"Bearer 0123456789abcdef012"), None);
        assert_eq!(
            set.check_header(format!("Bearer {GOOD}").as_bytes()),
            Some("shared")
        );
        assert_eq!(set.check_header(GOOD.as_bytes()), None);
    }

    #[test]
    fn tokens_file_names_each_token() {
        let text = "\u{feff}# workers\nalpha a1b2c3d4e5f6a7b8c9d0\n\nbeta b1c2d3e4f5a6b7c8d9e0\n";
        let set = TokenSet::parse_file(text).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.check(b"b1c2d3e4f5a6b7c8d9e0"), Some("beta"));
        assert_eq!(set.check(b"c1d2e3f4a5b6c7d8e9f0"), None);
        // A token anyone guesses, and one token for two workers, are refused.
        assert_eq!(
            TokenSet::parse_file("alpha aaaaaaaaaaaaaaaaaaaa").unwrap_err(),
            TokenError::Line {
                line: 1,
                why: format!("token of alpha: {}", TokenError::Weak(1))
            }
        );
        assert!(matches!(
            TokenSet::parse_file("alpha a1b2c3d4e5f6a7b8c9d0\nbeta a1b2c3d4e5f6a7b8c9d0"),
            Err(TokenError::Line { line: 2, .. })
        ));
        assert_eq!(
            TokenSet::parse_file("alpha short").unwrap_err(),
            TokenError::Line {
                line: 1,
                why: format!("token of alpha: {}", TokenError::Short(5))
            }
        );
        assert_eq!(
            TokenSet::parse_file("a b c").unwrap_err(),
            TokenError::Line {
                line: 1,
                why: "expected `NAME TOKEN`, found 3 fields".into()
            }
        );
        assert_eq!(
            TokenSet::parse_file("# nothing\n").unwrap_err(),
            TokenError::NoTokens
        );
    }
}
