//! A run drawn as a picture: an SVG timeline (`run --seed N --picture FILE.svg`).
//!
//! One lane per process, and in it one row per subject (a lock, a key: what the entries say
//! they are about). What a process holds (a span: a lease it believes in, a job it claimed) is a
//! bar labelled with what it holds; each operation is a thin bar from its invoke to its
//! completion, green for `ok`, grey for `fail`, amber for `info` (nobody knows whether it took
//! effect), and its notes are ticks. Faults shade the lanes they hit: crashes, pauses,
//! suspensions, partitions, latency spikes, throttling (of one process, or of everyone), table
//! outages; wall-clock steps and deletions of items are vertical marks. A violation's two
//! operations are ringed in red (first) and orange (second), the last good one in green.
//!
//! The SVG is self-contained: its style is inline, its fonts are the viewer's generic ones, and
//! it has no script. Each mark has a `<title>` with the line of the timeline it stands for.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use crate::history::{Actor, Entry, Event, Nemesis, OpId, Outcome, Phase, SpanId};
use crate::service::Service;
use crate::timeline::Timeline;
use crate::world::RunReport;

const LEFT: f64 = 70.0;
const WIDTH: f64 = 1400.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 56.0;
const ROW: f64 = 16.0;
const LANE_GAP: f64 = 10.0;

const PALETTE: [&str; 8] = ["#4878d0", "#6acc64", "#956cb4", "#d5bb67", "#82c6e2", "#dc7ec0", "#8c613c", "#797979"];

/// The role of an entry in a violation, for its highlight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    First,
    Second,
    LastGood,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::First => "violation first",
            Mark::Second => "violation second",
            Mark::LastGood => "last-good",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Mark::First => "1st",
            Mark::Second => "2nd",
            Mark::LastGood => "last good",
        }
    }

    fn colour(self) -> &'static str {
        match self {
            Mark::First => "#d00",
            Mark::Second => "#f80",
            Mark::LastGood => "#093",
        }
    }
}

/// A span of a fault in one lane (or in every lane, for `process: None`).
struct FaultSpan {
    process: Option<u16>,
    kind: &'static str,
    from: Duration,
    to: Duration,
    title: String,
}

/// A bar in a lane: a span held, or an operation.
struct Bar {
    process: u16,
    subject: String,
    from: Duration,
    to: Duration,
    class: &'static str,
    label: String,
    entries: Vec<usize>,
}

/// The run of `report` as an SVG document.
///
/// # Examples
///
/// ```
/// use dynalease_sim::{Config, Scenario, World};
/// use dynalease_sim::locks::{LockKind, LockService};
///
/// let config = Config { duration_ms: 120_000, ..Config::default() };
/// let report = World::new(Scenario::from_seed(0, &config, &LockService::with_lock(LockKind::Naive))).run();
/// let svg = dynalease_sim::picture::svg(&report);
/// assert!(svg.starts_with("<svg") && svg.contains(r#"class="lane""#));
/// ```
pub fn svg<S: Service>(report: &RunReport<S>) -> String {
    let history = report.history();
    let scenario = report.scenario();
    let entries = history.entries();
    let timeline = Timeline::new(history);
    let end = entries.last().map_or(Duration::from_millis(scenario.duration_ms), |e| e.at).max(Duration::from_secs(1));
    let x = |at: Duration| LEFT + WIDTH * at.as_secs_f64() / end.as_secs_f64();
    let lanes = scenario.processes.len();
    let subject = |index: usize| timeline.subject(index).unwrap_or("").to_owned();

    // The bars: spans from open to close, operations from invoke to completion.
    let mut bars = Vec::new();
    let mut open_spans: BTreeMap<SpanId, (u16, Duration, usize)> = BTreeMap::new();
    let mut open_ops: BTreeMap<OpId, (u16, Duration, usize)> = BTreeMap::new();
    let mut ticks = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let Actor::Process(p) = entry.actor else {
            if let Event::Note(_) = entry.event {
                ticks.push(index);
            }
            continue;
        };
        match &entry.event {
            Event::Open { span, .. } => {
                open_spans.insert(*span, (p.id, entry.at, index));
            }
            Event::Close { span, .. } => {
                if let Some((process, from, opened)) = open_spans.remove(span) {
                    let label = match &entries[opened].event {
                        Event::Open { value, .. } => value.describe(),
                        _ => String::new(),
                    };
                    bars.push(Bar {
                        process,
                        subject: subject(opened),
                        from,
                        to: entry.at,
                        class: "span",
                        label,
                        entries: vec![opened, index],
                    });
                }
            }
            Event::Invoke { op, .. } => {
                open_ops.insert(*op, (p.id, entry.at, index));
            }
            Event::Complete { op, outcome, .. } => {
                if let Some((process, from, invoked)) = open_ops.remove(op) {
                    let class = match outcome {
                        Outcome::Ok => "op ok",
                        Outcome::Fail => "op fail",
                        Outcome::Info => "op info",
                    };
                    bars.push(Bar {
                        process,
                        subject: subject(invoked),
                        from,
                        to: entry.at,
                        class,
                        label: String::new(),
                        entries: vec![invoked, index],
                    });
                }
            }
            Event::Note(_) => ticks.push(index),
            _ => {}
        }
    }

    let mut subjects: Vec<String> = bars.iter().map(|b| b.subject.clone()).collect();
    subjects.sort();
    subjects.dedup();
    let row_of: BTreeMap<&str, usize> = subjects.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    let rows = subjects.len().max(1);
    let lane_height = rows as f64 * ROW + 8.0;
    let lane_top = |p: u16| TOP + f64::from(p) * (lane_height + LANE_GAP);
    let row_y = |p: u16, subject: &str| lane_top(p) + 4.0 + row_of.get(subject).copied().unwrap_or(0) as f64 * ROW;
    let lanes_bottom = lane_top(lanes as u16) - LANE_GAP;
    let height = lanes_bottom + 24.0 + 18.0 * (subjects.len() as f64 / 4.0).ceil().max(1.0) + 3.0 * 16.0 + 10.0;
    let total_width = LEFT + WIDTH + RIGHT;

    // The entries of each violation, by index.
    let mut marks: BTreeMap<usize, Mark> = BTreeMap::new();
    for violation in report.violations() {
        for (list, mark) in
            [(&violation.last_good, Mark::LastGood), (&violation.second, Mark::Second), (&violation.first, Mark::First)]
        {
            for index in list {
                marks.insert(*index, mark);
            }
        }
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total_width:.0}" height="{height:.0}" viewBox="0 0 {total_width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        "<style>\
.lane-bg{{fill:#f7f7f7}} .lane-label{{font-weight:bold}} .axis{{stroke:#999;stroke-width:0.5}} \
.fault{{opacity:0.35}} .crash{{fill:#222}} .pause{{fill:#e6a100}} .suspend{{fill:#b0541e}} \
.partition{{fill:#c0392b}} .latency{{fill:#7f8c8d}} .throttle{{fill:#8e44ad}} .partial-batches{{fill:#6c3483}} .table-outage{{fill:#000}} \
.instant{{stroke-width:1.5;stroke-dasharray:3 2}} .clock-step{{stroke:#1f6f8b}} .delete-item{{stroke:#c0392b}} \
.span{{stroke:#333;stroke-width:0.5}} .op{{stroke:none;opacity:0.8}} .ok{{fill:#2e7d32}} .fail{{fill:#9e9e9e}} \
.info{{fill:#e6a100}} .label{{font-size:9px;fill:#fff}} .note{{stroke:#000;stroke-width:0.7}} \
.violation,.last-good{{fill:none;stroke-width:2.5}} .first{{stroke:#d00}} .second{{stroke:#f80}} .last-good{{stroke:#093}} \
.mark-label{{font-size:9px;font-weight:bold;stroke:none}} .heal{{stroke:#093;stroke-width:1}}\
</style>"
    );
    let kinds: Vec<&str> = report.violations().iter().map(|v| v.invariant.name()).collect();
    let title = format!(
        "service {}, seed {}, {} processes: {}",
        S::NAME,
        scenario.seed,
        lanes,
        if kinds.is_empty() { String::from("no violation") } else { kinds.join(", ") }
    );
    let _ = writeln!(out, r#"<text class="title" x="{LEFT}" y="18" font-size="13">{}</text>"#, escape(&title));

    // The time axis: a tick every "round" interval, about fifteen of them.
    let step_s = [1u64, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]
        .into_iter()
        .find(|s| end.as_secs() / s <= 15)
        .unwrap_or(3600);
    let _ = writeln!(out, r#"<g class="axis-ticks">"#);
    let mut t = 0;
    while Duration::from_secs(t) <= end {
        let at = x(Duration::from_secs(t));
        let _ = writeln!(
            out,
            r#"<line class="axis" x1="{at:.1}" y1="{:.1}" x2="{at:.1}" y2="{lanes_bottom:.1}"/><text x="{at:.1}" y="{:.1}" text-anchor="middle">{t} s</text>"#,
            TOP - 8.0,
            TOP - 12.0
        );
        t += step_s;
    }
    let _ = writeln!(out, "</g>");

    for p in 0..lanes as u16 {
        let top = lane_top(p);
        let _ = writeln!(
            out,
            r#"<g class="lane" data-process="p{p}"><rect class="lane-bg" x="{LEFT}" y="{top:.1}" width="{WIDTH}" height="{lane_height:.1}"/><text class="lane-label" x="8" y="{:.1}">p{p}</text></g>"#,
            top + lane_height / 2.0 + 4.0
        );
    }

    // Faults.
    let _ = writeln!(out, r#"<g class="faults">"#);
    for span in &fault_spans(entries, end) {
        let (from, to) = (x(span.from), x(span.to).max(x(span.from) + 1.0));
        let targets: Vec<u16> = match span.process {
            Some(p) if usize::from(p) < lanes => vec![p],
            Some(_) => Vec::new(),
            None => (0..lanes as u16).collect(),
        };
        for p in targets {
            let _ = writeln!(
                out,
                r#"<rect class="fault {}" x="{from:.1}" y="{:.1}" width="{:.1}" height="{lane_height:.1}"><title>{}</title></rect>"#,
                span.kind,
                lane_top(p),
                to - from,
                escape(&span.title)
            );
        }
    }
    for entry in entries {
        let at = x(entry.at);
        match &entry.event {
            Event::Nemesis(Nemesis::ClockStep { process, delta_ms }) if usize::from(*process) < lanes => {
                let top = lane_top(*process);
                let _ = writeln!(
                    out,
                    r##"<line class="instant clock-step" x1="{at:.1}" y1="{top:.1}" x2="{at:.1}" y2="{:.1}"><title>{}</title></line><text class="mark-label" x="{:.1}" y="{:.1}" fill="#1f6f8b">{delta_ms:+} ms</text>"##,
                    top + lane_height,
                    escape(&timeline.line(entry)),
                    at + 2.0,
                    top + 9.0
                );
            }
            Event::Nemesis(Nemesis::DeleteItem(item) | Nemesis::ReplaceItem(item)) => {
                let _ = writeln!(
                    out,
                    r##"<line class="instant delete-item" x1="{at:.1}" y1="{TOP:.1}" x2="{at:.1}" y2="{lanes_bottom:.1}"><title>{}</title></line><text class="mark-label" x="{:.1}" y="{:.1}" fill="#c0392b">{}</text>"##,
                    escape(&timeline.line(entry)),
                    at + 2.0,
                    TOP - 2.0,
                    escape(&item.to_string())
                );
            }
            Event::Phase(Phase::Healed) => {
                let _ = writeln!(
                    out,
                    r##"<line class="heal" x1="{at:.1}" y1="{:.1}" x2="{at:.1}" y2="{lanes_bottom:.1}"/><text class="mark-label" x="{:.1}" y="{:.1}" fill="#093">healed</text>"##,
                    TOP - 20.0,
                    at + 2.0,
                    TOP - 22.0
                );
            }
            _ => {}
        }
    }
    let _ = writeln!(out, "</g>");

    // Spans and operations.
    let _ = writeln!(out, r#"<g class="bars">"#);
    for bar in &bars {
        if usize::from(bar.process) >= lanes {
            continue;
        }
        let (from, to) = (x(bar.from), x(bar.to).max(x(bar.from) + 2.0));
        let y = row_y(bar.process, &bar.subject);
        let title: Vec<String> = bar.entries.iter().filter_map(|i| entries.get(*i)).map(|e| timeline.line(e)).collect();
        if bar.class == "span" {
            let colour = PALETTE[row_of.get(bar.subject.as_str()).copied().unwrap_or(0) % PALETTE.len()];
            let _ = writeln!(
                out,
                r#"<g><rect class="span" x="{from:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/><text class="label" x="{:.1}" y="{:.1}">{}</text><title>{}</title></g>"#,
                to - from,
                ROW - 4.0,
                from + 2.0,
                y + ROW - 7.0,
                escape(&bar.label.chars().take(((to - from) / 5.0) as usize).collect::<String>()),
                escape(&title.join("\n"))
            );
        } else {
            let _ = writeln!(
                out,
                r#"<rect class="{}" x="{from:.1}" y="{:.1}" width="{:.1}" height="3"><title>{}</title></rect>"#,
                bar.class,
                y + ROW - 5.0,
                to - from,
                escape(&title.join("\n"))
            );
        }
    }
    for index in &ticks {
        let Some(entry) = entries.get(*index) else { continue };
        let process = match entry.actor {
            Actor::Process(p) => p.id,
            _ => continue,
        };
        if usize::from(process) >= lanes {
            continue;
        }
        let at = x(entry.at);
        let y = row_y(process, timeline.subject(*index).unwrap_or(""));
        let _ = writeln!(
            out,
            r#"<line class="note" x1="{at:.1}" y1="{y:.1}" x2="{at:.1}" y2="{:.1}"><title>{}</title></line>"#,
            y + 4.0,
            escape(&timeline.line(entry))
        );
    }
    let _ = writeln!(out, "</g>");

    // The violation's operations, ringed.
    let _ = writeln!(out, r#"<g class="violations">"#);
    for (index, mark) in &marks {
        let Some(entry) = entries.get(*index) else { continue };
        let p = match (entry.actor, &entry.event) {
            (Actor::Process(p), _) => p.id,
            (_, Event::Nemesis(Nemesis::Triggered { process, .. })) => process.id,
            _ => continue,
        };
        if usize::from(p) >= lanes {
            continue;
        }
        let at = x(entry.at);
        let y = row_y(p, timeline.subject(*index).unwrap_or("")) + ROW / 2.0;
        let _ = writeln!(
            out,
            r#"<g class="{}"><circle class="{}" cx="{at:.1}" cy="{y:.1}" r="6"/><text class="mark-label" x="{:.1}" y="{:.1}" fill="{}">{}</text><title>{}</title></g>"#,
            mark.class(),
            mark.class(),
            at + 7.0,
            if *mark == Mark::Second { y + 11.0 } else { y - 5.0 },
            mark.colour(),
            mark.label(),
            escape(&timeline.line(entry))
        );
    }
    let _ = writeln!(out, "</g>");

    // Legend.
    let mut y = lanes_bottom + 24.0;
    let _ = writeln!(out, r#"<g class="legend">"#);
    for (i, subject) in subjects.iter().enumerate() {
        let lx = LEFT + (i % 4) as f64 * 180.0;
        if i > 0 && i % 4 == 0 {
            y += 18.0;
        }
        let name = if subject.is_empty() { "(no subject)" } else { subject.as_str() };
        let _ = writeln!(
            out,
            r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="10" fill="{}"/><text x="{:.1}" y="{y:.1}">{}</text>"#,
            y - 9.0,
            PALETTE[i % PALETTE.len()],
            lx + 18.0,
            escape(name)
        );
    }
    for line in [
        "bars: what a process holds (a lease, a claim), with what it is; thin bars: operations from invoke to completion \
         (green: ok, grey: fail, amber: unknown); ticks: notes",
        "shading: crash (dark grey), pause (amber), suspend (brown), partition (red), latency (grey), throttling (purple), \
         table outage (black); dashed: wall-clock steps (blue), deleted or replaced items (red)",
        "rings: the violation's first operation (red), second (orange), and the last good one before them (green)",
    ] {
        y += 16.0;
        let _ = writeln!(out, r#"<text x="{LEFT}" y="{y:.1}">{}</text>"#, escape(line));
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, "</svg>");
    out
}

/// The spans of the faults of a history: each from its start to its end (the heal, or the end
/// of the run, closes what is still open).
fn fault_spans(entries: &[Entry], end: Duration) -> Vec<FaultSpan> {
    let mut spans = Vec::new();
    let mut open: Vec<FaultSpan> = Vec::new();
    let close =
        |open: &mut Vec<FaultSpan>, spans: &mut Vec<FaultSpan>, at: Duration, pick: &dyn Fn(&FaultSpan) -> bool| {
            if let Some(i) = open.iter().position(pick) {
                let mut span = open.remove(i);
                span.to = at;
                spans.push(span);
            }
        };
    for entry in entries {
        let at = entry.at;
        let start = |process: Option<u16>, kind: &'static str, title: String| FaultSpan {
            process,
            kind,
            from: at,
            to: at,
            title: format!("{} s: {title}", ms(at)),
        };
        let Event::Nemesis(nemesis) = &entry.event else {
            if let Event::Phase(Phase::Healed) = entry.event {
                for mut span in open.drain(..) {
                    span.to = at;
                    spans.push(span);
                }
            }
            continue;
        };
        match nemesis {
            Nemesis::Crash(p) => open.push(start(Some(p.id), "crash", format!("crash {p}"))),
            Nemesis::Restart(p) => close(&mut open, &mut spans, at, &|s| s.kind == "crash" && s.process == Some(p.id)),
            Nemesis::Pause(p) => open.push(start(Some(p.id), "pause", format!("pause {p}"))),
            Nemesis::Suspend(p) => open.push(start(Some(p.id), "suspend", format!("suspend {p}"))),
            Nemesis::Resume(p) => {
                close(&mut open, &mut spans, at, &|s| matches!(s.kind, "pause" | "suspend") && s.process == Some(p.id))
            }
            Nemesis::Partition(p) => open.push(start(Some(*p), "partition", format!("partition p{p}"))),
            Nemesis::PartitionHealed(p) => {
                close(&mut open, &mut spans, at, &|s| s.kind == "partition" && s.process == Some(*p))
            }
            Nemesis::Latency { process, extra_ms } => {
                open.push(start(Some(*process), "latency", format!("latency of p{process} +{extra_ms} ms")))
            }
            Nemesis::LatencyHealed(p) => {
                while open.iter().any(|s| s.kind == "latency" && s.process == Some(*p)) {
                    close(&mut open, &mut spans, at, &|s| s.kind == "latency" && s.process == Some(*p));
                }
            }
            Nemesis::Throttle { process, per_million } => open.push(start(
                *process,
                "throttle",
                format!("throttle {} ({}%)", crate::nemesis::whom(*process), crate::nemesis::percent(*per_million)),
            )),
            // The end of a burst does not say which one: the oldest ends first.
            Nemesis::ThrottleEnded => close(&mut open, &mut spans, at, &|s| s.kind == "throttle"),
            Nemesis::PartialBatches { process, per_million } => open.push(start(
                *process,
                "partial-batches",
                format!(
                    "batches of {} in part ({}%)",
                    crate::nemesis::whom(*process),
                    crate::nemesis::percent(*per_million)
                ),
            )),
            Nemesis::PartialBatchesEnded => close(&mut open, &mut spans, at, &|s| s.kind == "partial-batches"),
            Nemesis::TableOutage(table) => {
                open.push(start(None, "table-outage", format!("table {table} answers ResourceNotFound")))
            }
            Nemesis::TableBack(_) => close(&mut open, &mut spans, at, &|s| s.kind == "table-outage"),
            _ => {}
        }
    }
    for mut span in open {
        span.to = end;
        spans.push(span);
    }
    spans
}

fn ms(at: Duration) -> String {
    format!("{}.{:03}", at.as_secs(), at.subsec_millis())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl<S: Service> RunReport<S> {
    /// The run as an SVG timeline (see [`crate::picture`]).
    pub fn picture(&self) -> String {
        svg(self)
    }
}
