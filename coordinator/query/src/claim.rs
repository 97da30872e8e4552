//! What a result may claim, said the same way everywhere it is shown (CLI text, JSON, the web
//! page, tree files). The words live with [`hakase_core::label::Label`] (`hakase_core::label`),
//! the one owner of "proven optimal GIVEN THE FIRST GUESS W" and "UPPER BOUND ONLY"; this
//! is the shorthand for a solved result.

use hakase_core::label::Label;

/// The claim of a result: `proven` as the solver reported it, and the first guess the solve
/// was restricted to, if any.
pub fn claim(proven: bool, first: Option<&str>) -> String {
    Label::of_result(proven, first.is_some()).claim(first)
}
