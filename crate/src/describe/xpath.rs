//! Order-sensitive XPaths computed from the snapshot tree (`/html/body/div[2]/input[1]`).

use crate::snapshot::{NodeData, PageSnapshot};

/// XPaths for every node, built in one pass: a node's path is its parent's plus one step.
/// Siblings are counted per tag (and text nodes per `text()`), as XPath does.
pub fn all_xpaths(snapshot: &PageSnapshot) -> Vec<String> {
    let n = snapshot.nodes.len();
    let mut paths: Vec<String> = Vec::with_capacity(n);
    // (parent, step name) -> how many seen so far.
    let mut counts: std::collections::HashMap<(Option<u32>, String), u32> = Default::default();
    for node in &snapshot.nodes {
        let step = match &node.data {
            NodeData::Element { tag, .. } => tag.clone(),
            NodeData::Text { .. } => "text()".to_string(),
        };
        let count = counts.entry((node.parent, step.clone())).or_insert(0);
        *count += 1;
        let parent_path = node.parent.map_or("", |p| paths[p as usize].as_str());
        paths.push(format!("{parent_path}/{step}[{count}]"));
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Rect;
    use crate::snapshot::test_support::Builder;

    #[test]
    fn counts_siblings_by_tag() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        let mut b = Builder::new();
        let html = b.el(None, "html", &[], r);
        let body = b.el(Some(html), "body", &[], r);
        b.el(Some(body), "div", &[], r);
        b.el(Some(body), "p", &[], r);
        let div2 = b.el(Some(body), "div", &[], r);
        b.text(div2, "x", r);
        let p = all_xpaths(&b.snap);
        assert_eq!(p[4], "/html[1]/body[1]/div[2]");
        assert_eq!(p[5], "/html[1]/body[1]/div[2]/text()[1]");
        assert_eq!(p[3], "/html[1]/body[1]/p[1]");
    }
}
