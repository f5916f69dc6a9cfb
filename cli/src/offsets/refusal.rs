//! The library's refusals in the words of the table: each located at the
//! row (and the column) of the tensor, gap or reuse it names.

use aether_planner::{PlanError, PlanOptions, Strategy};

use crate::constraints::fixed_column;
use crate::input::{At, CliError};

use super::TensorTable;

/// The library's `error` for `table` planned with `options`, as the tool
/// reports it.
pub fn refused(table: &TensorTable, options: &PlanOptions, error: PlanError) -> CliError {
    let at = |tensor: usize| At {
        file: &table.name,
        line: table.lines[tensor],
    };
    match error {
        PlanError::InvalidLifetime {
            tensor,
            first_use,
            last_use,
        } => at(tensor).field(
            "first_use",
            format!(
                "{first_use} is after last_use {last_use}; lifetimes are inclusive node \
                 indices, first_use <= last_use"
            ),
        ),
        PlanError::Overflow { tensor } => at(tensor).field(
            "size",
            format!(
                "{} overflow{}: an offset or a sum of live bytes would pass {}",
                match table.tensors[tensor].size {
                    1 => "1 byte".to_owned(),
                    size => format!("{size} bytes"),
                },
                if options.alignment > 1 {
                    format!(" when rounded up to --align {}", options.alignment)
                } else {
                    String::new()
                },
                usize::MAX
            ),
        ),
        other => match constrained(table, options.strategy, &other) {
            Some(error) => error,
            None => CliError::new(format!("{}: {other}", table.name)),
        },
    }
}

/// A refusal of a constrained problem, located at the rows of the tensors
/// it names; `None` for errors [`refused`] words itself.
fn constrained(table: &TensorTable, strategy: Strategy, error: &PlanError) -> Option<CliError> {
    let c = table.constraints.as_ref()?;
    let at = |t: usize| At {
        file: &table.name,
        line: table.lines[t],
    };
    let who = |t: usize| format!("{:?} (line {})", table.label(t), table.lines[t]);
    let fixed = fixed_column(table.format);
    Some(match *error {
        PlanError::DoesNotFit {
            capacity,
            lower_bound,
            proven,
        } => {
            let why = if !proven {
                let stopped = match strategy {
                    Strategy::Greedy => "the greedy planner found no plan within it",
                    Strategy::Heuristic => "the heuristic found no plan within it",
                    Strategy::Search => {
                        "the search's budget ran out before it found a plan or proved there is none"
                    }
                };
                format!(
                    "not proven: {stopped} (lower bound {lower_bound} bytes); --strategy search \
                     with a larger --budget-nodes may find one"
                )
            } else if lower_bound > capacity {
                format!("proven: the lower bound, {lower_bound} bytes, is above it")
            } else {
                format!("proven: the search tried every plan (lower bound {lower_bound} bytes)")
            };
            CliError::new(format!(
                "{}: does not fit in --capacity {capacity} bytes, {why}; no plan written",
                table.name
            ))
        }
        PlanError::InvalidTensorAlignment { tensor, alignment } => at(tensor).field(
            "alignment",
            format!("{alignment} is not a power of two (1, 2, 4, 8, ...)"),
        ),
        PlanError::MisalignedFixedOffset {
            tensor,
            offset,
            alignment,
        } => at(tensor).field(
            fixed,
            format!(
                "{offset} is not a multiple of {alignment}, the alignment this buffer needs (its \
                 own, --align, or that of a buffer reusing its memory)"
            ),
        ),
        PlanError::ConflictingFixedOffsets { first, second } => {
            let (a, b) = (c.fixed[first], c.fixed[second]);
            let shown = |o: Option<usize>| o.map_or("its group's".to_owned(), |o| o.to_string());
            if c.root(first) == c.root(second) {
                at(first).field(
                    fixed,
                    format!(
                        "fixed at {}, but it shares memory by reuse with {} fixed at {}",
                        shown(a),
                        who(second),
                        shown(b)
                    ),
                )
            } else {
                at(first).field(
                    fixed,
                    format!(
                        "fixed at {}, it shares bytes with {} fixed at {} while both are live",
                        shown(a),
                        who(second),
                        shown(b)
                    ),
                )
            }
        }
        PlanError::InvalidGap { gap, tensor } => at(tensor).field(
            "gaps",
            format!(
                "gap {:?} overlaps another gap of the buffer, or its window passes the buffer's \
                 {} bytes",
                c.gap_text.get(gap).map_or("", String::as_str),
                table.tensors[tensor].size
            ),
        ),
        PlanError::InvalidReuse { tensor, reused, .. } => {
            let (size, room) = (table.tensors[tensor].size, table.tensors[reused].size);
            let message = if tensor == reused {
                "a buffer cannot reuse its own memory".to_owned()
            } else if size > room {
                format!(
                    "its {size} bytes do not fit in the {room} bytes of {}",
                    who(reused)
                )
            } else {
                format!("reusing {} closes a cycle of reuses", who(reused))
            };
            at(tensor).field("reuses", message)
        }
        _ => return None,
    })
}
