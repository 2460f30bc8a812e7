//! The picture of a run: one lane per process, a bar per belief with its token, and the
//! violation's operations highlighted, in a self-contained SVG.

use dynalease_sim::history::Event;
use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::{Config, Scenario, World};

#[test]
fn the_picture_of_a_naive_seed_has_its_lanes_bars_and_violation() {
    // Seed 0 of the naive lock breaks safety (see check_naive_lock.rs).
    let naive = LockService::with_lock(LockKind::Naive);
    let report = World::new(Scenario::from_seed(0, &Config::default(), &naive)).run();
    assert!(!report.violations().is_empty());
    let svg = report.picture();

    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{}", &svg[..80]);
    assert!(svg.trim_end().ends_with("</svg>"));
    // Self-contained: no script, no link to anything outside.
    for outside in ["<script", "href", "@import", "url(", "@font-face"] {
        assert!(!svg.contains(outside), "{outside}");
    }
    assert_eq!(svg.matches("<g").count(), svg.matches("</g>").count(), "groups are closed");

    for p in 0..5 {
        assert!(svg.contains(&format!(r#"<g class="lane" data-process="p{p}">"#)), "lane p{p}");
    }
    assert_eq!(svg.matches(r#"class="lane""#).count(), 5);

    // A bar for every lease a process believed in, labelled with its lock and token.
    let beliefs: Vec<String> = report
        .history()
        .entries()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Open { value, .. } => Some(value.describe()),
            _ => None,
        })
        .collect();
    assert!(!beliefs.is_empty());
    assert_eq!(svg.matches(r#"<rect class="span""#).count(), beliefs.len());
    for belief in &beliefs {
        assert!(svg.contains(&format!("holds  {belief}")), "a bar of {belief}");
    }
    assert!(svg.contains(r#"class="op ok""#), "the operations, coloured by how they ended");
    assert!(svg.contains(r#"class="note""#), "the notes of the lock's probe");

    let violation = &report.violations()[0];
    assert!(svg.contains(r#"<g class="violation first">"#));
    assert!(svg.contains(r#"<g class="violation second">"#));
    assert_eq!(svg.contains(r#"<g class="last-good">"#), report.violations().iter().any(|v| !v.last_good.is_empty()));
    assert!(svg.contains(violation.invariant.name()), "the title names the violation");
}

#[test]
fn faults_are_shaded_in_the_lanes_they_hit() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/incidents/suspended-machine.toml")).unwrap();
    let svg = World::new(Scenario::<LockService>::from_toml(&text).unwrap()).run().picture();
    assert_eq!(svg.matches(r#"<rect class="fault suspend""#).count(), 1);
    assert_eq!(svg.matches(r#"class="instant clock-step""#).count(), 2);
    assert!(svg.contains(r#"<rect class="fault crash""#), "the crash of the liveness phase");
}
