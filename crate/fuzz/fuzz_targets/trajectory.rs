//! Saved trajectories (a run and its screenshots) as a person loads one from a file
//! (`loadTrajectory`), then everything done with a loaded run: its image references, its
//! replay cache, its recording and every text export. A trajectory that loads saves and loads
//! back the same (../round_trip.rs); renaming its images keeps each of them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::agent::replay::cache::Cache;
use sightline::agent::replay::trajectory::{replay_cache, Trajectory};
use sightline::export;
use sightline::vocab::geometry::WindowSize;
use std::collections::HashMap;
#[path = "../round_trip.rs"]
mod round_trip;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(mut t) = Trajectory::from_json(text) else { return };
    assert!(t.images.values().all(|url| url.starts_with("data:image/")));
    round_trip::check(&t, Trajectory::from_json, "save → load");

    let count = t.images.len();
    let prefix = format!("{}/", t.run.id);
    t.rekey(&prefix);
    assert_eq!(t.images.len(), count, "rekeying lost images");
    assert!(t.images.keys().all(|k| k.starts_with(&prefix)));
    let _ = Trajectory::references(&t.run);

    if let Ok(cache) = replay_cache(&t.run, 1.0) {
        round_trip::check(&cache, Cache::import, "replay cache export → import");
    }
    let recording = export::recording_of(&t.run);
    let viewport = WindowSize::default();
    // What the Midscene export writes is a flow file again (or an error saying why not).
    let _ = sightline::flow::parse_flow(&export::to_midscene_yaml(&recording, viewport));
    let _ = export::to_playwright(&recording, viewport);
    let _ = serde_json::to_string(&export::to_recorder(&recording, viewport));
    let images: HashMap<String, String> = t.images.clone().into_iter().collect();
    let _ = export::to_html_report(&t.run, &images);
});
