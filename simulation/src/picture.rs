//! A run drawn as a picture: an SVG timeline (`dynalease-sim run --seed N --picture FILE.svg`).
//!
//! One lane per process, and in it one row per lock: each belief of the process in a lease is a
//! bar labelled with its fencing token, from the answer of its acquire to the moment the process
//! learns the lease ended. Ticks mark the grants (tall) and renewals (short) DynamoDB applied for
//! the process; dots mark its fenced writes that committed (filled) or were refused (hollow),
//! and its writes the external store accepted (squares). Faults shade the lanes they hit:
//! crashes, pauses, suspensions, partitions, latency spikes, throttling (of one process, or of
//! everyone), table outages; wall-clock steps and deletions of a lock item are vertical marks.
//! A violation's two operations are ringed in red (first) and orange (second), the last good
//! one in green, and the bars of their beliefs are outlined alike.
//!
//! The SVG is self-contained: its style is inline, its fonts are the viewer's generic ones, and
//! it has no script. Each mark has a `<title>` with the line of the timeline it stands for.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use crate::history::{Actor, BeliefId, Call, Entry, Event, LockId, Nemesis, Outcome, Phase, WriteEffect};
use crate::report::RunReport;
use crate::timeline::Timeline;

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
}

/// A span of a fault in one lane (or in every lane, for `process: None`).
struct FaultSpan {
    process: Option<u16>,
    kind: &'static str,
    from: Duration,
    to: Duration,
    title: String,
}

/// The run of `report` as an SVG document.
///
/// # Examples
///
/// ```
/// use dynalease_sim::{Config, LockKind, Scenario, World};
///
/// let config = Config { lock: LockKind::Naive, duration_ms: 120_000, ..Config::default() };
/// let report = World::new(Scenario::from_seed(0, &config)).run();
/// let svg = dynalease_sim::picture::svg(&report);
/// assert!(svg.starts_with("<svg") && svg.contains(r#"class="lane""#));
/// ```
pub fn svg(report: &RunReport) -> String {
    let history = report.history();
    let scenario = report.scenario();
    let entries = history.entries();
    let timeline = Timeline::new(history);
    let end = entries.last().map_or(Duration::from_millis(scenario.duration_ms), |e| e.at).max(Duration::from_secs(1));
    let x = |at: Duration| LEFT + WIDTH * at.as_secs_f64() / end.as_secs_f64();

    let mut locks: Vec<LockId> = entries.iter().filter_map(|e| timeline.lock_of(e)).collect();
    locks.sort_unstable();
    locks.dedup();
    let row_of: BTreeMap<LockId, usize> = locks.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    let rows = locks.len().max(1);
    let lane_height = rows as f64 * ROW + 8.0;
    let lanes = scenario.processes.len();
    let lane_top = |p: u16| TOP + f64::from(p) * (lane_height + LANE_GAP);
    let row_y = |p: u16, lock: LockId| lane_top(p) + 4.0 + row_of.get(&lock).copied().unwrap_or(0) as f64 * ROW;
    let lanes_bottom = lane_top(lanes as u16) - LANE_GAP;
    let height = lanes_bottom + 24.0 + 18.0 * (locks.len() as f64 / 4.0).ceil().max(1.0) + 3.0 * 16.0 + 10.0;
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
.partition{{fill:#c0392b}} .latency{{fill:#7f8c8d}} .throttle{{fill:#8e44ad}} .table-outage{{fill:#000}} \
.instant{{stroke-width:1.5;stroke-dasharray:3 2}} .clock-step{{stroke:#1f6f8b}} .delete-item{{stroke:#c0392b}} \
.belief{{stroke:#333;stroke-width:0.5}} .belief.highlight-first{{stroke:#d00;stroke-width:2.5}} \
.belief.highlight-second{{stroke:#f80;stroke-width:2.5}} .belief.highlight-last-good{{stroke:#093;stroke-width:2.5}} \
.token{{font-size:9px;fill:#fff}} .grant{{stroke:#000;stroke-width:1.5}} .renewal{{stroke:#000;stroke-width:0.7}} \
.write{{stroke:#000;stroke-width:0.8}} .committed{{fill:#000}} .refused{{fill:#fff}} .store{{fill:#555}} \
.violation,.last-good{{fill:none;stroke-width:2.5}} .first{{stroke:#d00}} .second{{stroke:#f80}} .last-good{{stroke:#093}} \
.mark-label{{font-size:9px;font-weight:bold;stroke:none}} .heal{{stroke:#093;stroke-width:1}}\
</style>"
    );
    let kinds: Vec<&str> = report.violations().iter().map(|v| v.kind.name()).collect();
    let title = format!(
        "seed {}, lock {}, {} processes, lease {} s: {}",
        scenario.seed,
        scenario.lock,
        lanes,
        scenario.lease_ms / 1000,
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

    // Lanes.
    for p in 0..lanes as u16 {
        let top = lane_top(p);
        let _ = writeln!(
            out,
            r#"<g class="lane" data-process="p{p}"><rect class="lane-bg" x="{LEFT}" y="{top:.1}" width="{WIDTH}" height="{lane_height:.1}"/><text class="lane-label" x="8" y="{:.1}">p{p}</text></g>"#,
            top + lane_height / 2.0 + 4.0
        );
    }

    // Faults.
    let spans = fault_spans(entries, end);
    let _ = writeln!(out, r#"<g class="faults">"#);
    for span in &spans {
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
            Event::Nemesis(Nemesis::DeleteItem(lock)) => {
                let _ = writeln!(
                    out,
                    r##"<line class="instant delete-item" x1="{at:.1}" y1="{TOP:.1}" x2="{at:.1}" y2="{lanes_bottom:.1}"><title>{}</title></line><text class="mark-label" x="{:.1}" y="{:.1}" fill="#c0392b">delete {}</text>"##,
                    escape(&timeline.line(entry)),
                    at + 2.0,
                    TOP - 2.0,
                    escape(history.lock_name(*lock))
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

    // Beliefs: bars from Held to Unheld.
    let mut open: BTreeMap<BeliefId, (u16, LockId, u64, Duration, usize)> = BTreeMap::new();
    let mut bars = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        match (&entry.event, entry.actor) {
            (Event::Held { belief, lock, token, .. }, Actor::Process(p)) => {
                open.insert(*belief, (p.id, *lock, *token, entry.at, index));
            }
            (Event::Unheld { belief, .. }, _) => {
                if let Some(bar) = open.remove(belief) {
                    bars.push((bar, entry.at, Some(index)));
                }
            }
            _ => {}
        }
    }
    bars.extend(open.into_values().map(|bar| (bar, end, None)));
    let _ = writeln!(out, r#"<g class="beliefs">"#);
    for ((p, lock, token, from, held_index), to, unheld_index) in bars {
        if usize::from(p) >= lanes {
            continue;
        }
        let highlight = [Some(held_index), unheld_index]
            .into_iter()
            .flatten()
            .filter_map(|i| marks.get(&i))
            .min()
            .map(|mark| match mark {
                Mark::First => " highlight-first",
                Mark::Second => " highlight-second",
                Mark::LastGood => " highlight-last-good",
            })
            .unwrap_or("");
        let (x0, x1) = (x(from), x(to).max(x(from) + 1.5));
        let y = row_y(p, lock) + 2.0;
        let color = PALETTE[row_of.get(&lock).copied().unwrap_or(0) % PALETTE.len()];
        let lock_name = history.lock_name(lock);
        let title = format!("p{p} believes it holds {lock_name} with token {token}, {} .. {}", ms(from), ms(to));
        let _ = write!(
            out,
            r#"<g class="belief-bar" data-lock="{}" data-token="{token}"><rect class="belief{highlight}" x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{color}"><title>{}</title></rect>"#,
            escape(lock_name),
            x1 - x0,
            ROW - 4.0,
            escape(&title)
        );
        if x1 - x0 >= 12.0 {
            let _ = write!(out, r#"<text class="token" x="{:.1}" y="{:.1}">{token}</text>"#, x0 + 2.0, y + ROW - 7.0);
        }
        let _ = writeln!(out, "</g>");
    }
    let _ = writeln!(out, "</g>");

    // Grants, renewals, fenced writes and store writes.
    let mut fenced: BTreeMap<crate::history::OpId, (u16, LockId)> = BTreeMap::new();
    let _ = writeln!(out, r#"<g class="ticks">"#);
    for entry in entries {
        let at = x(entry.at);
        match (&entry.event, entry.actor) {
            (Event::Applied { lock, by, before, after, .. }, _) if usize::from(by.id) < lanes => {
                let y = row_y(by.id, *lock);
                let (class, top, bottom) = match WriteEffect::of(before, after) {
                    WriteEffect::Grant => ("grant", y - 1.0, y + ROW - 1.0),
                    WriteEffect::Renewal => ("renewal", y + ROW - 6.0, y + ROW - 1.0),
                    _ => continue,
                };
                let _ = writeln!(
                    out,
                    r#"<line class="{class}" x1="{at:.1}" y1="{top:.1}" x2="{at:.1}" y2="{bottom:.1}"><title>{}</title></line>"#,
                    escape(&timeline.line(entry))
                );
            }
            (
                Event::Invoke { op, call: Call::FencedWrite { lock, .. } | Call::StoreWrite { lock, .. } },
                Actor::Process(p),
            ) => {
                fenced.insert(*op, (p.id, *lock));
            }
            (Event::Committed { op }, _) => {
                if let Some((p, lock)) = fenced.get(op).copied().filter(|(p, _)| usize::from(*p) < lanes) {
                    write_dot(&mut out, "write committed", at, row_y(p, lock) + ROW / 2.0, &timeline.line(entry));
                }
            }
            (Event::StoreAccepted { op, .. }, _) => {
                if let Some((p, lock)) = fenced.get(op).copied().filter(|(p, _)| usize::from(*p) < lanes) {
                    let y = row_y(p, lock) + ROW / 2.0;
                    let _ = writeln!(
                        out,
                        r#"<rect class="write store" x="{:.1}" y="{:.1}" width="5" height="5"><title>{}</title></rect>"#,
                        at - 2.5,
                        y - 2.5,
                        escape(&timeline.line(entry))
                    );
                }
            }
            (Event::Complete { op, outcome: Outcome::Fail, .. }, _) => {
                if let Some((p, lock)) = fenced.get(op).copied().filter(|(p, _)| usize::from(*p) < lanes) {
                    write_dot(&mut out, "write refused", at, row_y(p, lock) + ROW / 2.0, &timeline.line(entry));
                }
            }
            _ => {}
        }
    }
    let _ = writeln!(out, "</g>");

    // The violation's operations, ringed.
    let _ = writeln!(out, r#"<g class="violations">"#);
    for (index, mark) in &marks {
        let Some(entry) = entries.get(*index) else { continue };
        let Some(p) = process_of(entry, &fenced).filter(|p| usize::from(*p) < lanes) else { continue };
        let at = x(entry.at);
        let y = match timeline.lock_of(entry) {
            Some(lock) => row_y(p, lock) + ROW / 2.0,
            None => lane_top(p) + lane_height / 2.0,
        };
        let _ = writeln!(
            out,
            r#"<g class="{}"><circle class="{}" cx="{at:.1}" cy="{y:.1}" r="6"/><text class="mark-label" x="{:.1}" y="{:.1}" fill="{}">{}</text><title>{}</title></g>"#,
            mark.class(),
            mark.class(),
            at + 7.0,
            match mark {
                Mark::First => y - 5.0,
                Mark::Second => y + 11.0,
                Mark::LastGood => y - 5.0,
            },
            match mark {
                Mark::First => "#d00",
                Mark::Second => "#f80",
                Mark::LastGood => "#093",
            },
            mark.label(),
            escape(&timeline.line(entry))
        );
    }
    let _ = writeln!(out, "</g>");

    // Legend: the colour of each lock, and what the marks mean.
    let mut y = lanes_bottom + 24.0;
    let _ = writeln!(out, r#"<g class="legend">"#);
    for (i, lock) in locks.iter().enumerate() {
        let lx = LEFT + (i % 4) as f64 * 180.0;
        if i > 0 && i % 4 == 0 {
            y += 18.0;
        }
        let _ = writeln!(
            out,
            r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="10" fill="{}"/><text x="{:.1}" y="{y:.1}">lock {}</text>"#,
            y - 9.0,
            PALETTE[i % PALETTE.len()],
            lx + 18.0,
            escape(history.lock_name(*lock))
        );
    }
    for line in [
        "bars: beliefs in a lease, with their token; tall ticks: grants; short ticks: renewals; dots: fenced writes \
         (filled: committed, hollow: refused); squares: writes the external store accepted",
        "shading: crash (dark grey), pause (amber), suspend (brown), partition (red), latency (grey), throttling (purple), \
         table outage (black); dashed: wall-clock steps (blue), deleted lock items (red)",
        "rings: the violation's first operation (red), second (orange), and the last good one before them (green)",
    ] {
        y += 16.0;
        let _ = writeln!(out, r#"<text x="{LEFT}" y="{y:.1}">{}</text>"#, escape(line));
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, "</svg>");
    out
}

fn write_dot(out: &mut String, class: &str, x: f64, y: f64, title: &str) {
    let _ = writeln!(
        out,
        r#"<circle class="{class}" cx="{x:.1}" cy="{y:.1}" r="2.5"><title>{}</title></circle>"#,
        escape(title)
    );
}

/// The process an entry belongs to in the picture.
fn process_of(entry: &Entry, fenced: &BTreeMap<crate::history::OpId, (u16, LockId)>) -> Option<u16> {
    match (&entry.event, entry.actor) {
        (_, Actor::Process(p)) => Some(p.id),
        (Event::Applied { by, .. } | Event::Refused { by, .. }, _) => Some(by.id),
        (Event::Committed { op } | Event::StoreAccepted { op, .. }, _) => fenced.get(op).map(|(p, _)| *p),
        (Event::Nemesis(Nemesis::Triggered { process, .. }), _) => Some(process.id),
        _ => None,
    }
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
                format!(
                    "throttle {} ({}%)",
                    process.map_or(String::from("everyone"), |p| format!("p{p}")),
                    f64::from(*per_million) / 10_000.0
                ),
            )),
            // The end of a burst does not say which one: the oldest ends first.
            Nemesis::ThrottleEnded => close(&mut open, &mut spans, at, &|s| s.kind == "throttle"),
            Nemesis::TableOutage => {
                open.push(start(None, "table-outage", String::from("the table answers ResourceNotFound")))
            }
            Nemesis::TableBack => close(&mut open, &mut spans, at, &|s| s.kind == "table-outage"),
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

impl RunReport {
    /// The run as an SVG timeline (see [`crate::picture`]).
    pub fn picture(&self) -> String {
        svg(self)
    }
}
