//! Stable sorting through one shared instance of the standard library's sort.
//!
//! `slice::sort_by` compiles a whole merge sort (about 4-6 KB of the worker's module) for each
//! element type and comparison; the lists sorted here are short (a run's models, image
//! references, a tree's attributes, a request's payloads). [`sort_by`] sorts the positions
//! instead, with the comparison behind `dyn`, so every caller shares the one sort of `usize`,
//! then moves the elements into that order: the same result as `sort_by` (stable).

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal elements in their order (as `slice::sort_by`).
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    let order = positions_in_order(items.len(), &|a, b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts `items` by the key `key` gives, keeping equal elements in their order.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `0..len` sorted (stably) by `compare` of two positions.
#[inline(never)]
fn positions_in_order(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        let mut seed = 17u32;
        for len in [0usize, 1, 2, 5, 21, 64, 300] {
            let items: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((seed >> 16) % 7, i)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|&(k, _)| k);
            let mut ours = items.clone();
            sort_by_key(&mut ours, |&(k, _)| k);
            assert_eq!(ours, expected, "{len} items");
            let mut reversed = items;
            sort_by(&mut reversed, |a, b| b.0.cmp(&a.0));
            expected.sort_by_key(|b| std::cmp::Reverse(b.0));
            assert_eq!(reversed, expected, "{len} items, reversed");
        }
    }

    #[test]
    fn moves_owned_elements_without_losing_any() {
        let mut words: Vec<String> = ["pear", "fig", "apple", "fig", "kiwi"].iter().map(|s| s.to_string()).collect();
        sort_by(&mut words, |a, b| a.cmp(b));
        assert_eq!(words, ["apple", "fig", "fig", "kiwi", "pear"]);
    }
}
