//! The platform corner: what the algorithms need from the machine, kept out
//! of them. Fallible allocation and the memory guard ([`fallible`]), typed
//! arrays carved out of a caller's buffer ([`scratch`]), memory hints
//! ([`pages`]) and the one architecture-specific loop ([`words`]).

pub(crate) mod fallible;
pub(crate) mod pages;
pub(crate) mod scratch;
pub(crate) mod words;
