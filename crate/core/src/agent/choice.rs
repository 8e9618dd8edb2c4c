//! Which option a choice means: the option of a native `<select>` a plan's text names, and the
//! element of an opened custom list box that is it. One rule for the loop's `Select` and an
//! agent's `choose_option`.

use crate::describe::Extraction;

/// The number of the option of `options` a plan's `wanted` text names: the same text, then
/// the same ignoring case, then the one option holding it.
pub(crate) fn option_index(options: &[String], wanted: &str) -> Option<u32> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let wanted = norm(wanted);
    let lower = wanted.to_lowercase();
    let find = |test: &dyn Fn(&str) -> bool| options.iter().position(|o| test(&norm(o)));
    find(&|o| o == wanted)
        .or_else(|| find(&|o| o.to_lowercase() == lower))
        .or_else(|| {
            let holding: Vec<usize> =
                (0..options.len()).filter(|&i| norm(&options[i]).to_lowercase().contains(&lower)).collect();
            (holding.len() == 1).then(|| holding[0])
        })
        .map(|i| i as u32)
}

/// The element of an opened custom list box that is the option `wanted`: listed, not the box
/// itself, its text the option's (the same, else holding it); list items first.
pub(crate) fn listed_option<'p>(
    page: &'p Extraction,
    list: &crate::describe::Element,
    wanted: &str,
) -> Option<&'p crate::describe::Element> {
    let lower = wanted.trim().to_lowercase();
    let is_item = |e: &crate::describe::Element| {
        matches!(e.attr("role"), Some("option" | "menuitem" | "menuitemradio" | "treeitem" | "gridcell"))
            || matches!(e.tag.as_str(), "li" | "option")
    };
    let candidates: Vec<&crate::describe::Element> =
        page.elements.iter().filter(|e| e.is_listed() && e.id != list.id && !e.content.trim().is_empty()).collect();
    let rank = |exact: bool| {
        candidates
            .iter()
            .filter(|e| {
                let c = e.content.trim().to_lowercase();
                if exact {
                    c == lower
                } else {
                    c.contains(&lower)
                }
            })
            .max_by_key(|e| is_item(e))
            .copied()
    };
    rank(true).or_else(|| rank(false))
}
