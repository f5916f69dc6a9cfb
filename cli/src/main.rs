//! `aether-plan`: the command-line front end of aether-planner.
//!
//! Three subcommands, one per decision the library makes: `offsets` plans a
//! tensor table into one arena (and draws it), `reduce` prints the transitive
//! reduction of a DAG, `islands` labels the connected components of an
//! incidence list. Every malformed input ends in one line naming the file,
//! the line and the field, and exit status 1; nothing is printed before the
//! whole result is known.

mod constraints;
mod graph;
mod input;
mod offsets;
mod progress;
mod svg;
mod table;
mod units;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use aether_planner::{PlanOptions, SearchBudget, Strategy};
use clap::error::ErrorKind;
use clap::{Parser, Subcommand, ValueEnum};

use input::{CliError, Input};

const MAIN_HELP: &str = "\
Input formats (CSV with a header line; reduce and islands also take JSON):
  offsets   size,first_use,last_use   inclusive node indices
            id,lower,upper,size       MiniMalloc's format: upper is EXCLUSIVE
  reduce    source,target             a DAG numbered topologically (source < target)
  islands   a,b                       incidences between nodes

Examples:
  aether-plan offsets --svg mobilenet_v1.svg     plan the embedded FP32 MobileNet V1, draw it
  aether-plan offsets tensors.csv --format csv   plan your own table, print every offset
  aether-plan reduce edges.csv --dot reduced.dot
  aether-plan islands incidences.json --nodes 100

  $ printf 'size,first_use,last_use\\n100,0,1\\n80,1,2\\n60,2,3\\n' | aether-plan offsets - --format csv
  size,first_use,last_use,offset
  100,0,1,0
  80,1,2,100
  60,2,3,0

Bad input stops the run with one line naming the file, the line and the field
(`aether-plan: error: FILE:LINE: field 'NAME': ...`) and exit status 1; nothing
is printed as if it were a whole result. Usage errors exit with status 2.
Each subcommand's --help explains its input format with an example.";

const OFFSETS_HELP: &str = "\
Input formats (detected from the header line; columns in any order, other columns kept):
  size,first_use,last_use   sizes in bytes; lifetimes are inclusive node indices
  id,lower,upper,size       MiniMalloc's benchmark format: upper is EXCLUSIVE,
                            read as first_use = lower, last_use = upper - 1

Example (FILE):
  size,first_use,last_use
  100,0,1
  80,1,2
  60,2,3

  $ aether-plan offsets FILE --format csv
  size,first_use,last_use,offset
  100,0,1,0
  80,1,2,100
  60,2,3,0

Example (MiniMalloc FILE, a buffer live over [lower, upper)):
  id,lower,upper,size
  b1,0,3,4
  b2,3,9,4

  $ aether-plan offsets FILE --format csv
  id,lower,upper,size,offset
  b1,0,3,4,0
  b2,3,9,4,0

Constraints (MiniMalloc's optional columns, in any order): alignment, gaps
(space-separated lower-upper or lower-upper@wlo:whi, upper exclusive), hint
(-1: none), offset (a fixed offset; -1: free), and this tool's reuses (the id of
the buffer whose memory this one takes over). --capacity N: every buffer ends at
or below N bytes, else \"does not fit\" (proven or not) and no plan.
--format minimalloc writes MiniMalloc's output format. See docs/cli.md.

Strategies (--strategy):
  greedy      best fit in decreasing size, the specification's planner (default)
  heuristic   the best of several orderings and placement rules, then local moves
  search      exact branch and bound from the heuristic's plan, until the plan is
              proven optimal or a budget runs out: --budget-nodes N (default
              {NODES}; `none` for no limit), and --budget-ms N, a time cap
              (default: none: no time cap). With only a node budget the plan
              is the same on every machine; a time cap that is reached makes
              it depend on the machine's speed.

--align N (a power of two, default 1) makes every offset a multiple of N and
rounds every size up to a multiple of N; the peak, the arena, the lower bound
and the picture then count rounded sizes. The CSV keeps the sizes as given.

--svg FILE draws the plan: x is time, y is byte offset, one rectangle per tensor
with a tooltip, the arena and the peak, and a legend. With more than 5,000
tensors, those under a pixel wide or tall (and beyond the 5,000 largest) are
merged into one grey shape that fills every pixel one of them touches, so that a
million tensors make a file of kilobytes, written in a moment; the legend says
how many were merged.

The summary gives the tensor count, the peak live bytes (the most bytes live at
one node: no arena can be smaller), the arena the plan needs, their ratio, the
best lower bound known and whether the arena meets it (proven optimal), the
search nodes used and the planning time. With no FILE, plans FP32 MobileNet V1's
internal values (--network picks another embedded table). --format csv and
--format json print only the data on standard output, and the summary on
standard error. While a plan takes longer than a moment, a line on a terminal's
standard error shows the time spent and the budget, and for a search without
constraint columns its best arena, proven bound and gap as they improve.";

const REDUCE_HELP: &str = "\
Input: the edges of a DAG whose nodes are numbered topologically (source < target
for every edge), as CSV with the header source,target, or as JSON: an array of
[source, target] pairs or {\"source\": s, \"target\": t} objects, or an object
{\"nodes\": N, \"edges\": [...]}. The nodes are 0..N-1, where N is --nodes, else the
JSON's \"nodes\", else one more than the largest node named.

Memory: the reduction keeps a bit matrix of at most about N²/16 bytes, built in
blocks of columns that fit the memory left, so a matrix too large to hold whole is
reduced block by block rather than refused. So that a small
file cannot ask for a large one, a node count from the file (\"nodes\", or the
largest node plus one) may be at most 2 per edge plus 16,384; more is refused,
naming the line. --nodes N is taken as given.

Example (FILE):
  source,target
  0,1
  1,2
  0,2

  $ aether-plan reduce FILE
  source,target
  0,1
  1,2

The kept edges (the unique smallest edge set with the same reachability, sorted)
go to standard output; how many edges were removed goes to standard error.";

const ISLANDS_HELP: &str = "\
Input: incidences between nodes, as CSV with the header a,b, or as JSON: an array
of [a, b] pairs or {\"a\": x, \"b\": y} objects, or an object {\"nodes\": N,
\"incidences\": [...]}. The nodes are 0..N-1, where N is --nodes, else the JSON's
\"nodes\", else one more than the largest node named. An incidence (t, t) puts t
in an island of its own; a node in no incidence is in no island (`none`).
Islands are numbered by their smallest node.

Memory: tens of bytes per node. So that a small file cannot ask for gigabytes, a
node count from the file (\"nodes\", or the largest node plus one) may be at
most 2 per incidence plus 1,048,576; more is refused, naming the line. --nodes N
is taken as given.

Example (FILE):
  a,b
  0,1
  3,3

  $ aether-plan islands FILE
  node,island
  0,0
  1,0
  2,none
  3,1

The labels go to standard output; the island count and sizes to standard error.";

/// Plans tensor offsets in one arena, reduces DAGs and finds islands, with
/// the aether-planner library.
#[derive(Parser, Debug)]
#[command(
    name = "aether-plan",
    version,
    after_help = MAIN_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Plan byte offsets for a table of tensor lifetimes (default: MobileNet V1).
    #[command(after_help = offsets_help())]
    Offsets(OffsetsArgs),
    /// Print the transitive reduction of a DAG's edge list.
    #[command(after_help = REDUCE_HELP)]
    Reduce(ReduceArgs),
    /// Label the connected components ("islands") of an incidence list.
    #[command(after_help = ISLANDS_HELP)]
    Islands(IslandsArgs),
}

#[derive(clap::Args, Debug)]
struct OffsetsArgs {
    /// Tensor table (CSV); `-` reads standard input. Default: the embedded network.
    #[arg(conflicts_with = "network")]
    file: Option<PathBuf>,
    /// Which embedded network to plan when no FILE is given.
    #[arg(long, value_enum)]
    network: Option<Network>,
    /// Also print the offsets: `table` after the summary, or `csv`/`json` alone.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Draw the plan as SVG into this file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// The planner to run.
    #[arg(long, value_enum, default_value_t = StrategyArg::Greedy)]
    strategy: StrategyArg,
    /// Every offset a multiple of N, a power of two; sizes are rounded up to N.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_alignment)]
    align: usize,
    /// Time cap of --strategy search in milliseconds, or `none` [default: none: no time cap]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    budget_ms: Option<Limit>,
    /// Node budget of --strategy search (help: `node_budget_help`).
    #[arg(long, value_name = "N", value_parser = parse_limit, help = node_budget_help())]
    budget_nodes: Option<Limit>,
    /// Every buffer must end at or below N bytes; else "does not fit", no plan.
    #[arg(long, value_name = "N")]
    capacity: Option<usize>,
}

/// The planners of `--strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StrategyArg {
    /// Best fit in decreasing size: the specification's planner.
    Greedy,
    /// The best of several orderings and placement rules, then local moves.
    Heuristic,
    /// Exact branch and bound from the heuristic's plan, within the budget.
    Search,
}

impl From<StrategyArg> for Strategy {
    fn from(strategy: StrategyArg) -> Strategy {
        match strategy {
            StrategyArg::Greedy => Strategy::Greedy,
            StrategyArg::Heuristic => Strategy::Heuristic,
            StrategyArg::Search => Strategy::Search,
        }
    }
}

/// A budget as given: a whole number, or `none` for no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    At(u64),
    Unlimited,
}

impl Limit {
    fn get(self) -> Option<u64> {
        match self {
            Limit::At(n) => Some(n),
            Limit::Unlimited => None,
        }
    }
}

/// The library's default node budget, which `--budget-nodes` defaults to.
fn default_node_budget() -> Option<u64> {
    SearchBudget::default().nodes
}

/// The node budget's default in words: `300000`, or `none`.
fn default_node_budget_text() -> String {
    default_node_budget().map_or("none".to_owned(), |n| n.to_string())
}

/// `--budget-nodes`' help, with the library's default.
fn node_budget_help() -> String {
    format!(
        "Node budget of --strategy search, or `none` for no limit [default: {}]",
        default_node_budget_text()
    )
}

/// `offsets --help`'s text after the flags, with the library's node budget.
fn offsets_help() -> String {
    OFFSETS_HELP.replace("{NODES}", &default_node_budget_text())
}

/// `--align`: a power of two.
fn parse_alignment(text: &str) -> Result<usize, String> {
    let value: usize = text.parse().map_err(|_| {
        format!("{text:?} is not a whole number; the alignment is a power of two: 1, 2, 4, 8, ...")
    })?;
    if value.is_power_of_two() {
        Ok(value)
    } else {
        Err(format!(
            "{value} is not a power of two; the alignment is a power of two: 1, 2, 4, 8, ..."
        ))
    }
}

/// `--budget-ms`, `--budget-nodes`: a whole number or `none`.
fn parse_limit(text: &str) -> Result<Limit, String> {
    if text == "none" {
        return Ok(Limit::Unlimited);
    }
    text.parse()
        .map(Limit::At)
        .map_err(|_| format!("{text:?} is not a whole number or `none`"))
}

#[derive(clap::Args, Debug)]
struct ReduceArgs {
    /// Edge list (CSV or JSON); `-` reads standard input.
    file: PathBuf,
    /// The number of nodes (default: one more than the largest node named).
    #[arg(long, value_name = "N")]
    nodes: Option<usize>,
    /// Write the reduced graph as Graphviz DOT into this file.
    #[arg(long, value_name = "FILE")]
    dot: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct IslandsArgs {
    /// Incidence list (CSV or JSON); `-` reads standard input.
    file: PathBuf,
    /// The number of nodes (default: one more than the largest node named).
    #[arg(long, value_name = "N")]
    nodes: Option<usize>,
}

/// How `offsets` prints the plan beyond its summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The summary, then an aligned table of every tensor.
    Table,
    /// The input's columns plus `offset`, one row per tensor in input order.
    Csv,
    /// One JSON object with the figures and every tensor's offset.
    Json,
    /// MiniMalloc's output: id,lower,upper,size[,alignment][,hint][,gaps],offset.
    Minimalloc,
}

/// The embedded FP32 MobileNet tables (see data/networks/SOURCE.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Network {
    /// FP32 MobileNet V1: 28 internal values over 29 nodes.
    V1,
    /// FP32 MobileNet V2: 65 internal values.
    V2,
    /// FP32 MobileNet V3 Large: 122 internal values.
    V3Large,
    /// FP32 MobileNet V3 Small: 109 internal values.
    V3Small,
}

impl Network {
    /// The network's name for headings.
    fn title(self) -> &'static str {
        match self {
            Network::V1 => "FP32 MobileNet V1",
            Network::V2 => "FP32 MobileNet V2",
            Network::V3Large => "FP32 MobileNet V3 Large",
            Network::V3Small => "FP32 MobileNet V3 Small",
        }
    }

    /// The table's file name and contents.
    fn table(self) -> (&'static str, &'static str) {
        match self {
            Network::V1 => (
                "mobilenet_v1_fp32.csv",
                include_str!("../../data/networks/mobilenet_v1_fp32.csv"),
            ),
            Network::V2 => (
                "mobilenet_v2_fp32.csv",
                include_str!("../../data/networks/mobilenet_v2_fp32.csv"),
            ),
            Network::V3Large => (
                "mobilenet_v3_large_fp32.csv",
                include_str!("../../data/networks/mobilenet_v3_large_fp32.csv"),
            ),
            Network::V3Small => (
                "mobilenet_v3_small_fp32.csv",
                include_str!("../../data/networks/mobilenet_v3_small_fp32.csv"),
            ),
        }
    }
}

/// The data a run writes to standard output, streamed into its buffer.
type Data = Box<dyn FnOnce(&mut Stdout) -> std::io::Result<()>>;

/// Standard output, as the data writers see it: one buffer in front of it.
type Stdout = BufWriter<std::io::StdoutLock<'static>>;

/// What a run prints: data for standard output, a summary for standard
/// error. The plan is complete before either is written, and files
/// (`--svg`, `--dot`) are written before either; then standard error, then
/// `stdout`, then `data`.
#[derive(Default)]
struct Output {
    stdout: String,
    data: Option<Data>,
    stderr: String,
}

fn cannot_write(path: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: cannot write: {e}", path.display()))
}

fn write_file(path: &Path, contents: &str) -> Result<(), CliError> {
    std::fs::write(path, contents).map_err(|e| cannot_write(path, e))
}

/// Writes a file through one buffer, as `write` produces it.
fn stream_file(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let mut out = BufWriter::with_capacity(
        1 << 16,
        File::create(path).map_err(|e| cannot_write(path, e))?,
    );
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| cannot_write(path, e))
}

fn run_offsets(args: OffsetsArgs) -> Result<Output, CliError> {
    let (input, title) = match &args.file {
        Some(path) => {
            let input = Input::read(path)?;
            let title = format!("plan of {}", input.name);
            (input, title)
        }
        None => {
            let network = args.network.unwrap_or(Network::V1);
            let (file, text) = network.table();
            let input = Input::embedded(&format!("{file} (embedded)"), text);
            (
                input,
                format!("plan of {} (embedded {file})", network.title()),
            )
        }
    };
    // No time cap unless one is asked for: the node budget alone ends the
    // search, so the plan is the same on every machine.
    let budget = SearchBudget::default()
        .with_time(
            args.budget_ms
                .and_then(Limit::get)
                .map(Duration::from_millis),
        )
        .with_nodes(args.budget_nodes.map_or(default_node_budget(), Limit::get));
    let options = PlanOptions::default()
        .with_alignment(args.align)
        .with_strategy(args.strategy.into())
        .with_budget(budget);
    let table = offsets::read_table(&input)?;
    if args.format == Some(Format::Minimalloc) {
        table.check_minimalloc()?;
    }
    let planned = offsets::plan(table, &options, args.capacity)?;
    // Never freed: the process ends once the plan is written, and handing a
    // million rows' strings back to the allocator one by one costs more
    // than writing them.
    let planned: &'static offsets::Planned = Box::leak(Box::new(planned));

    let mut summary = planned.summary(&title);
    if let Some(path) = &args.svg {
        let table = &planned.table;
        let picture = svg::Picture {
            title: &title,
            tensors: &planned.planned,
            given: &table.tensors,
            offsets: &planned.report.plan.offsets,
            names: table.ids.as_ref().or(table.names.as_ref()),
            constraints: table.constraints.as_ref(),
            arena: planned.report.plan.arena_size,
            peak: planned.peak,
            lower_bound: planned.report.lower_bound,
            alignment: planned.options.alignment,
            method: offsets::method(planned.options.strategy),
            format: table.format,
        };
        stream_file(path, |out| svg::render(&picture, out))?;
        summary.push_str(&format!("  svg              {}\n", path.display()));
    }
    let Some(format) = args.format else {
        return Ok(Output {
            stdout: summary,
            ..Output::default()
        });
    };
    let (stdout, stderr) = match format {
        Format::Table => (summary + "\n", String::new()),
        _ => (String::new(), summary),
    };
    let data: Data = Box::new(move |out| match format {
        Format::Table => planned.write_table(out),
        Format::Csv => planned.write_csv(out),
        Format::Json => planned.write_json(out),
        Format::Minimalloc => planned.write_minimalloc_csv(out),
    });
    Ok(Output {
        stdout,
        data: Some(data),
        stderr,
    })
}

fn run_reduce(args: ReduceArgs) -> Result<Output, CliError> {
    let input = Input::read(&args.file)?;
    let reduced = graph::reduce(&input, args.nodes)?;
    let mut stderr = format!("{}: {}", input.name, reduced.summary());
    if let Some(path) = &args.dot {
        write_file(path, &reduced.dot(&input.name))?;
        stderr.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(Output {
        stdout: reduced.csv(),
        stderr,
        ..Output::default()
    })
}

fn run_islands(args: IslandsArgs) -> Result<Output, CliError> {
    let input = Input::read(&args.file)?;
    let islands = graph::islands(&input, args.nodes)?;
    Ok(Output {
        stdout: islands.csv(),
        stderr: format!("{}: {}", input.name, islands.summary()),
        ..Output::default()
    })
}

/// Parses the command line. A bad value of a flag (`--align 3`) is one line,
/// `aether-plan: error: invalid value ...`, and exit status 2, like every
/// other usage error; clap reports the others.
fn parse_command_line() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(error) if error.kind() == ErrorKind::ValueValidation => {
            let text = error.to_string();
            let line = text.lines().next().unwrap_or_default();
            eprintln!(
                "aether-plan: error: {}",
                line.strip_prefix("error: ").unwrap_or(line)
            );
            Err(ExitCode::from(2))
        }
        Err(error) => error.exit(),
    }
}

fn main() -> ExitCode {
    let cli = match parse_command_line() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let result = match cli.command {
        Command::Offsets(args) => run_offsets(args),
        Command::Reduce(args) => run_reduce(args),
        Command::Islands(args) => run_islands(args),
    };
    match result {
        Ok(output) => {
            let _ = std::io::stderr().write_all(output.stderr.as_bytes());
            let mut stdout = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            let written = stdout
                .write_all(output.stdout.as_bytes())
                .and_then(|()| output.data.map_or(Ok(()), |data| data(&mut stdout)))
                .and_then(|()| stdout.flush());
            match written {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("aether-plan: error: cannot write standard output: {e}");
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(error) => {
            eprintln!("aether-plan: error: {error}");
            ExitCode::FAILURE
        }
    }
}
