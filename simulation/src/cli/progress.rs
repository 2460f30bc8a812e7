//! Progress of long work on a terminal: a bar on stderr with the count done, the rate, the
//! violations so far and the time left. Nothing at all unless both stdout and stderr are
//! terminals, so logs, pipes and CI output stay byte for byte what they are without it.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar, or nothing.
pub(super) struct Progress {
    bar: ProgressBar,
    unit: String,
}

impl Progress {
    /// A bar of `total` steps, counted in `unit`, if stdout and stderr are terminals.
    pub(super) fn new(total: u64, unit: &str) -> Self {
        if !(std::io::stdout().is_terminal() && std::io::stderr().is_terminal()) {
            return Progress { bar: ProgressBar::hidden(), unit: unit.to_owned() };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let template = format!("{{bar:20}} {{pos}}/{{len}} {unit}, {{msg}}, {{eta}} left");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress { bar, unit: unit.to_owned() }
    }

    /// The count done so far, and a word on what it found (the rate goes before it).
    pub(super) fn step(&self, position: u64, message: String) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.set_position(position);
        self.bar.set_message(format!("{:.1} {}/s, {message}", self.bar.per_sec(), self.unit));
    }

    /// Runs `print` with the bar out of the way, so what it writes to stdout stays whole.
    pub(super) fn print(&self, print: impl FnOnce()) {
        self.bar.suspend(print);
    }

    /// Takes the bar off the terminal.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
