//! `dynalease-sim`: the simulation of the `dynalease` lock library from the command line.
//!
//! ```text
//! dynalease-sim                          # the default sweep, with a summary
//! dynalease-sim run --seed 42            # one seed; the last line is `digest: <hex>`
//! dynalease-sim --lock naive sweep --seeds 200
//! dynalease-sim sweep --seeds 1000000 --partition 3/8 --format json > part-3.json
//! dynalease-sim shrink --seed 0 --lock naive
//! ```
//!
//! See [`dynalease_sim::cli`] for every command. `RUST_LOG` turns on logs (to stderr); they
//! change nothing in a run.

use std::process::ExitCode;

use clap::ValueEnum;
use dynalease_sim::Scenario;
use dynalease_sim::cli::{self, ServiceArgs};
use dynalease_sim::locks::{LockKind, LockService};

/// Every request of a simulated run allocates in the SDK and the fake; glibc's allocator was a
/// third of all instructions of a sweep.
#[global_allocator]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

/// The lock library's options on the command line.
#[derive(Debug, clap::Args)]
struct LockArgs {
    /// The lock the processes use: the library, or the deliberately naive one. Default: the
    /// library, or the lock a scenario file names.
    #[arg(long, global = true, value_enum)]
    lock: Option<Lock>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Lock {
    Library,
    Naive,
}

impl LockArgs {
    fn kind(&self) -> Option<LockKind> {
        self.lock.map(|lock| match lock {
            Lock::Library => LockKind::Library,
            Lock::Naive => LockKind::Naive,
        })
    }
}

impl ServiceArgs for LockArgs {
    type Service = LockService;

    fn service(&self) -> LockService {
        LockService::with_lock(self.kind().unwrap_or_default())
    }

    fn command_line(&self) -> String {
        match self.kind() {
            Some(LockKind::Naive) => String::from(" --lock naive"),
            _ => String::new(),
        }
    }

    fn apply(&self, scenario: &mut Scenario<LockService>) {
        if let Some(lock) = self.kind() {
            LockService::switch_lock(scenario, lock);
        }
    }
}

fn main() -> ExitCode {
    cli::main::<LockArgs>("dynalease-sim")
}
