//! Shared by the CDP targets: decode a capture as `describeCdpSnapshot` does, describe what
//! decodes with the snapshot's own paint-order hit-testing, and check what both promise.
use sightline::describe::{describe_with, DescribeOptions, Format};
use sightline::snapshot::cdp;
use std::collections::HashSet;

/// `options`: bit 0 picks Midscene's format over ours, bit 1 keeps only elements in view.
pub fn decode_and_describe(capture: &str, metrics: &str, remote_frames: &str, options: u8) {
    let Ok(page) = cdp::decode(capture, metrics, remote_frames) else { return };
    let snap = &page.snapshot;
    // Pre-order: every node's parent comes before it (classification sweeps rely on it).
    for (i, node) in snap.nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            assert!((p as usize) < i, "node {i}'s parent {p} does not come before it");
        }
    }
    let opts = DescribeOptions {
        format: if options & 1 == 0 { Format::Compact } else { Format::Midscene },
        viewport_only: options & 2 != 0,
    };
    let extraction = describe_with(snap, &opts, &mut page.hit_test());
    let mut ids = HashSet::new();
    let mut last_index = 0;
    for e in &extraction.elements {
        assert!(ids.insert(e.id.as_str()), "element id {} given twice", e.id);
        assert!(e.index > last_index, "element numbers not increasing: {} after {last_index}", e.index);
        last_index = e.index;
        let node = snap.nodes.get(e.node as usize).expect("an element names a node the snapshot holds");
        assert!(node.visible && node.rect.is_some(), "element {} from a node with no visible box", e.index);
        assert!(!e.xpath.is_empty(), "element {} has no XPath", e.index);
    }
    assert_eq!(extraction.tree.is_some(), opts.format == Format::Midscene);
    // What describeCdpSnapshot hands to JavaScript.
    serde_json::to_string(&extraction).expect("the extraction encodes as JSON");
}
