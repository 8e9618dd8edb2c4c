//! XPaths that lead back to an element: order-sensitive steps (`div[2]/input[1]`), anchored on
//! the nearest ancestor whose `id` is unique on the page (`//*[@id="main"]/div[2]/input[1]`),
//! else from the root (`/html[1]/body[1]/…`).
//!
//! Steps use the DOM sibling positions the walkers record (`SnapNode::position`). Paths are
//! built only for the elements that need one; for every node they would cost memory quadratic
//! in depth.

use crate::snapshot::{NodeData, PageSnapshot};
use std::collections::HashMap;

pub struct XPaths<'a> {
    snapshot: &'a PageSnapshot,
    /// The node's `id` when no other node on the page has it.
    unique_id: Vec<Option<&'a str>>,
}

impl<'a> XPaths<'a> {
    pub fn new(snapshot: &'a PageSnapshot) -> Self {
        let mut id_count: HashMap<&str, u32> = HashMap::new();
        for node in &snapshot.nodes {
            if let Some(id) = node.attr("id").filter(|id| !id.is_empty()) {
                *id_count.entry(id).or_insert(0) += 1;
            }
        }
        let unique_id = snapshot
            .nodes
            .iter()
            .map(|node| node.attr("id").filter(|id| id_count.get(id) == Some(&1) && is_plain_id(id)))
            .collect();
        XPaths { snapshot, unique_id }
    }

    pub fn of(&self, node: usize) -> String {
        use std::fmt::Write;
        // Walk up to the root or an anchor, then write the steps top-down into one string.
        let mut chain: Vec<usize> = Vec::new();
        let mut anchor = None;
        let mut current = Some(node);
        while let Some(i) = current {
            if i != node {
                if let Some(id) = self.unique_id[i] {
                    anchor = Some(id);
                    break;
                }
            }
            chain.push(i);
            current = self.snapshot.nodes[i].parent.map(|p| p as usize);
        }
        let mut out = String::with_capacity(chain.len() * 10 + 16);
        if let Some(id) = anchor {
            let _ = write!(out, "//*[@id=\"{id}\"]");
        }
        for &i in chain.iter().rev() {
            let node = &self.snapshot.nodes[i];
            let _ = write!(out, "/{}[{}]", step_name(&node.data), node.position.max(1));
        }
        out
    }
}

fn step_name(data: &NodeData) -> &str {
    match data {
        NodeData::Element { tag, .. } => tag,
        NodeData::Text { .. } => crate::snapshot::TEXT_STEP,
    }
}

/// An id usable inside a double-quoted XPath literal.
fn is_plain_id(id: &str) -> bool {
    !id.contains('"')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Rect;
    use crate::snapshot::test_support::Builder;

    #[test]
    fn counts_siblings_by_tag_and_anchors_on_unique_ids() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        b.el(Some(body), "div", &[], r);
        let p = b.el(Some(body), "p", &[], r);
        let div2 = b.el(Some(body), "div", &[("id", "main")], r);
        let text = b.text(div2, "x", r);
        let dup1 = b.el(Some(body), "section", &[("id", "dup")], r);
        let dup2 = b.el(Some(body), "section", &[("id", "dup")], r);
        let inner = b.el(Some(dup2), "span", &[], r);
        let x = XPaths::new(&b.snap);
        assert_eq!(x.of(p as usize), "/html[1]/body[1]/p[1]");
        assert_eq!(x.of(div2 as usize), "/html[1]/body[1]/div[2]", "its own id does not anchor itself");
        assert_eq!(x.of(text as usize), "//*[@id=\"main\"]/text()[1]");
        assert_eq!(x.of(inner as usize), "/html[1]/body[1]/section[2]/span[1]", "duplicate ids are no anchor");
        let _ = dup1;
    }

    #[test]
    fn deep_paths_are_built_without_recursion() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let mut parent = b.el(None, "html", &[], r);
        for _ in 0..10_000 {
            parent = b.el(Some(parent), "div", &[], r);
        }
        let x = XPaths::new(&b.snap);
        assert!(x.of(parent as usize).ends_with("/div[1]/div[1]"));
    }
}
