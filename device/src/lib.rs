//! hakase-device (filled by later issues).
