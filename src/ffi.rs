//! The C ABI.
