//! Results that are answers, not errors, but that a script must be able to tell apart by the
//! exit status (docs/guide.md, "Exit status").

use thiserror::Error;

/// The exit status of a solve that proved (or, with a restricted search, found) no strategy
/// winning every answer within the guesses allowed: 3, apart from 1 (an error) and 2 (a
/// command line refused).
pub const NO_WIN_EXIT: u8 = 3;

/// The game cannot be won on every answer within the guesses allowed. The result has
/// already been printed in full (text or JSON), so `main` adds nothing and exits with
/// [`NO_WIN_EXIT`].
#[derive(Debug, Error)]
#[error(
    "no strategy wins every answer within {}",
    crate::output::plural(*guesses_left, "guess", "guesses")
)]
pub struct NoWin {
    /// The guesses allowed.
    pub guesses_left: u32,
}
