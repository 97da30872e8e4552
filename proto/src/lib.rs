//! hakase-proto (filled by later issues).
