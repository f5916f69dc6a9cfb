//! The compiler-scale benchmark: `bench-scale run FILE STRATEGY [BUDGET_MS]`
//! measures one case (see `scale_driver.rs`); `bench-scale write-heavy COUNT
//! SEED FILE` writes the heavy-tailed random table as MiniMalloc CSV;
//! `bench-scale write-family FAMILY N SEED FILE` writes `n` buffers of one of
//! the sweep's shape families (`workloads::Family`, by name) the same way.
//! `scripts/bench_scale.sh` runs every case with this build and with 0.1.0.

#[path = "../scale_driver.rs"]
mod driver;

use std::path::Path;

use aether_bench::workloads::{heavy_tailed_tensors, write_minimalloc, Family};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => driver::run(&args[1..]),
        Some("write-heavy") => {
            let count: usize = args[1].parse().expect("count");
            let seed: u64 = args[2].parse().expect("seed");
            write_minimalloc(Path::new(&args[3]), &heavy_tailed_tensors(count, seed))
                .expect("writing the table");
        }
        Some("write-family") => {
            let family = Family::from_name(&args[1]).expect("a family name");
            let count: usize = args[2].parse().expect("count");
            let seed: u64 = args[3].parse().expect("seed");
            write_minimalloc(Path::new(&args[4]), &family.tensors(count, seed))
                .expect("writing the table");
        }
        _ => {
            eprintln!(
                "usage: bench-scale run FILE STRATEGY [BUDGET_MS] | write-heavy COUNT SEED FILE \
                 | write-family FAMILY COUNT SEED FILE"
            );
            std::process::exit(2);
        }
    }
}
