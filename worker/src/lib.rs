//! hakase-worker (filled by later issues).
