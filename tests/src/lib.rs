//! hakase-tests (filled by later issues).
