//! Benchmark support.
