//! The core's file-modules form a DAG: no file reaches, through `crate::` / `super::` / `self::`
//! paths (or a bare path into one of its own child modules), back to a file that reaches it.
//!
//! The graph is read from the sources themselves, not from the compiler, so a cycle shows up
//! here as the list of files to untangle. What counts as an edge:
//! - a path in a `use` item or in code, resolved to the file that defines it; a path through a
//!   module's re-export (`pub use child::Item`) leads on to the child that defines the item;
//! - a module file that declares or re-exports its own children is NOT an edge to them (that is
//!   how Rust spells a folder), but using a child's item in its own code is.
//!
//! Not read: comments, strings and `#[cfg(test)]` items (tests sit on top of everything). The
//! browser bindings (crate/web, crate/reader) are other crates, on top of this one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;
type ModPath = Vec<String>;

#[test]
fn the_core_modules_form_a_dag() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    read_sources(&root, &root, &mut files);
    assert!(files.len() > 20, "read only {} files under {}", files.len(), root.display());
    let graph = module_graph(&files);
    let cycles = cycles(&graph);
    let explained: Vec<String> = cycles
        .iter()
        .map(|cycle| {
            let group = circle_of(&graph, &cycle[0]);
            let inside: Vec<String> = group
                .iter()
                .map(|f| {
                    format!(
                        "    {f} → {}",
                        graph[f].iter().filter(|t| group.contains(*t)).cloned().collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            format!(
                "  {}\n  ({} files in this circle; their edges inside it:)\n{}",
                cycle.join(" → "),
                group.len(),
                inside.join("\n")
            )
        })
        .collect();
    assert!(cycles.is_empty(), "the core's modules have {} cycle(s):\n{}", cycles.len(), explained.join("\n"));
}

#[test]
fn the_rooms_form_a_dag_too() {
    // The folders (snapshot, describe, …, agent, export, flow) read as one module each: a file of
    // one may not reach a file of another that reaches back, even through different files.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    read_sources(&root, &root, &mut files);
    let cycles = cycles(&rooms(&module_graph(&files)));
    assert!(
        cycles.is_empty(),
        "the core's rooms have cycles: {}",
        cycles.iter().map(|c| c.join(" → ")).collect::<Vec<_>>().join("; ")
    );
}

/// The graph with each file replaced by its top-level module (`agent/tasks.rs` → `agent`).
fn rooms(graph: &Graph) -> Graph {
    let room = |f: &str| f.split('/').next().unwrap_or(f).trim_end_matches(".rs").to_string();
    let mut out = Graph::new();
    for (from, tos) in graph {
        let edges = out.entry(room(from)).or_default();
        edges.extend(tos.iter().map(|t| room(t)).filter(|t| *t != room(from)));
    }
    out
}

/// The files that reach `file` and that `file` reaches: its strongly connected group.
fn circle_of(graph: &Graph, file: &str) -> BTreeSet<String> {
    let reach = |forward: bool| {
        let mut seen = BTreeSet::from([file.to_string()]);
        let mut todo = vec![file.to_string()];
        while let Some(v) = todo.pop() {
            for (from, tos) in graph {
                let next: Vec<&String> = if forward {
                    if *from == v {
                        tos.iter().collect()
                    } else {
                        vec![]
                    }
                } else if tos.contains(&v) {
                    vec![from]
                } else {
                    vec![]
                };
                for n in next {
                    if seen.insert(n.clone()) {
                        todo.push(n.clone());
                    }
                }
            }
        }
        seen
    };
    reach(true).intersection(&reach(false)).cloned().collect()
}

fn read_sources(root: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read src").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for path in entries {
        let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if path.is_dir() {
            read_sources(root, &path, files);
        } else if relative.ends_with(".rs") {
            files.insert(relative, std::fs::read_to_string(&path).expect("read source"));
        }
    }
}

/// `agent/tasks.rs` → [agent, tasks]; `agent/mod.rs` → [agent]; `lib.rs` → [].
fn module_of(file: &str) -> ModPath {
    let stem = file.trim_end_matches(".rs");
    let mut parts: ModPath = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The graph of file-modules (names like `agent/tasks.rs`) from their sources.
fn module_graph(files: &BTreeMap<String, String>) -> Graph {
    let scans: BTreeMap<String, Scan> = files.iter().map(|(f, src)| (f.clone(), scan(&module_of(f), src))).collect();
    // Files declared only under #[cfg(test)] (and everything below them) are left out.
    let test_only: Vec<ModPath> = scans
        .iter()
        .flat_map(|(f, s)| s.test_children.iter().map(move |child| [module_of(f), vec![child.clone()]].concat()))
        .collect();
    let modules: BTreeMap<ModPath, String> = files
        .keys()
        .map(|f| (module_of(f), f.clone()))
        .filter(|(m, _)| !test_only.iter().any(|t| m.starts_with(t)))
        .collect();
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let scan = &scans[file];
        let edges = graph.entry(file.clone()).or_default();
        for path in &scan.paths {
            if let Some(target) = resolve(path, &modules, &scans, 0) {
                if &target != file {
                    edges.insert(target);
                }
            }
        }
        for path in &scan.reexports {
            // Re-exporting its own descendants is how a folder is spelled, not a dependency.
            if !path.starts_with(module) || path.len() <= module.len() {
                if let Some(target) = resolve(path, &modules, &scans, 0) {
                    if &target != file {
                        edges.insert(target);
                    }
                }
            }
        }
    }
    graph
}

/// The file defining the item at an absolute path: the longest prefix that is a file-module,
/// followed through that module's re-exports.
fn resolve(
    path: &[String],
    modules: &BTreeMap<ModPath, String>,
    scans: &BTreeMap<String, Scan>,
    depth: u32,
) -> Option<String> {
    let (len, file) = (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]).map(|f| (n, f)))?;
    if depth < 8 {
        if let Some(name) = path.get(len) {
            if let Some(source) = scans[file].reexport_names.get(name) {
                let rest = [source.clone(), path[len + 1..].to_vec()].concat();
                return resolve(&rest, modules, scans, depth + 1);
            }
        }
    }
    Some(file.clone())
}

#[derive(Default, Debug)]
struct Scan {
    /// Absolute paths this file uses (in `use` items and code).
    paths: Vec<ModPath>,
    /// Absolute paths of its `pub use` items.
    reexports: Vec<ModPath>,
    /// Re-exported name → absolute path of the item it names.
    reexport_names: BTreeMap<String, ModPath>,
    /// Child modules declared under #[cfg(test)].
    test_children: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// Comments, strings and char literals removed; what is left split into tokens.
fn tokens(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !prev_is_ident(&chars, i)
            && raw_string_at(&chars, i)
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while chars[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
        } else if c == ':' && next == Some(':') {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

fn raw_string_at(chars: &[char], i: usize) -> bool {
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"')
}

fn is_ident(tok: Option<&Tok>, name: &str) -> bool {
    matches!(tok, Some(Tok::Ident(s)) if s == name)
}

/// Reads one file: the paths it uses, its re-exports, its test-only children.
fn scan(module: &[String], src: &str) -> Scan {
    let toks = tokens(src);
    let mut scan = Scan::default();
    // Inline modules: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    // Children this file declares (`mod x;`), so a bare `x::` path is recognised.
    let children: BTreeSet<String> = toks
        .windows(3)
        .filter_map(|w| match w {
            [Tok::Ident(m), Tok::Ident(name), Tok::Punct(';')] if m == "mod" => Some(name.clone()),
            _ => None,
        })
        .collect();
    let mut i = 0;
    while i < toks.len() {
        let here: ModPath = [module.to_vec(), inline.iter().map(|(n, _)| n.clone()).collect()].concat();
        match &toks[i] {
            Tok::Punct('#') if toks.get(i + 1) == Some(&Tok::Punct('[')) => {
                let end = matching(&toks, i + 1, '[', ']');
                let attr = &toks[i + 2..end];
                let cfg_test =
                    attr == [Tok::Ident("cfg".into()), Tok::Punct('('), Tok::Ident("test".into()), Tok::Punct(')')];
                i = end + 1;
                if cfg_test {
                    // Skip the item: through its `;` or its braced body, whichever comes first.
                    while i < toks.len() && toks[i] == Tok::Punct('#') {
                        i = matching(&toks, i + 1, '[', ']') + 1;
                    }
                    let declared = item_mod_name(&toks[i..]);
                    while i < toks.len() && toks[i] != Tok::Punct(';') && toks[i] != Tok::Punct('{') {
                        i += 1;
                    }
                    if toks.get(i) == Some(&Tok::Punct('{')) {
                        i = matching(&toks, i, '{', '}');
                        if toks.get(i + 1) == Some(&Tok::Punct(';')) {
                            i += 1;
                        }
                    } else if let Some(name) = declared {
                        scan.test_children.push(name);
                    }
                    i += 1;
                }
                continue;
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Punct('{'))) = (toks.get(i + 1), toks.get(i + 2)) {
                    depth += 1;
                    inline.push((name.clone(), depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(kw) if kw == "use" => {
                let public = i > 0 && (is_ident(toks.get(i - 1), "pub") || toks.get(i - 1) == Some(&Tok::Punct(')')));
                let end = (i..toks.len()).find(|&j| toks[j] == Tok::Punct(';')).unwrap_or(toks.len());
                let mut trees = Vec::new();
                use_tree(&toks[i + 1..end], Vec::new(), &mut trees);
                for (path, alias) in trees {
                    let Some(absolute) = absolute(&path, &here, &children, inline.is_empty()) else { continue };
                    if public {
                        if let Some(name) =
                            alias.or_else(|| absolute.last().cloned()).filter(|n| n != "*" && n != "self")
                        {
                            if inline.is_empty() {
                                scan.reexport_names.insert(name, absolute.clone());
                            }
                        }
                        scan.reexports.push(absolute);
                    } else {
                        scan.paths.push(absolute);
                    }
                }
                i = end + 1;
                continue;
            }
            Tok::Ident(first)
                if toks.get(i + 1) == Some(&Tok::PathSep) && toks.get(i.wrapping_sub(1)) != Some(&Tok::PathSep) =>
            {
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::PathSep) {
                    match toks.get(j + 1) {
                        Some(Tok::Ident(seg)) => {
                            path.push(seg.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                if let Some(absolute) = absolute(&path, &here, &children, inline.is_empty()) {
                    scan.paths.push(absolute);
                }
                i = j;
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// The name in `mod name` at the start of an item (after visibility).
fn item_mod_name(toks: &[Tok]) -> Option<String> {
    let at = toks.iter().position(|t| is_ident(Some(t), "mod"))?;
    match (toks.get(at + 1), toks.get(at + 2)) {
        (Some(Tok::Ident(name)), Some(Tok::Punct(';'))) => Some(name.clone()),
        _ => None,
    }
}

fn matching(toks: &[Tok], open_at: usize, open: char, close: char) -> usize {
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(open_at) {
        if *t == Tok::Punct(open) {
            depth += 1;
        } else if *t == Tok::Punct(close) {
            depth -= 1;
            if depth == 0 {
                return j;
            }
        }
    }
    toks.len() - 1
}

/// Expands a use tree (`a::{b, c::{self, d as e}}`) into (path, alias) pairs.
fn use_tree(toks: &[Tok], prefix: ModPath, out: &mut Vec<(ModPath, Option<String>)>) {
    let mut path = prefix;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(seg) if seg == "as" => {
                if let Some(Tok::Ident(alias)) = toks.get(i + 1) {
                    out.push((path.clone(), Some(alias.clone())));
                }
                return;
            }
            Tok::Ident(seg) => path.push(seg.clone()),
            Tok::Punct('*') => path.push("*".into()),
            Tok::PathSep => {}
            Tok::Punct('{') => {
                let end = matching(toks, i, '{', '}');
                let inner = &toks[i + 1..end];
                let mut depth = 0;
                let mut start = 0;
                for (j, t) in inner.iter().enumerate() {
                    match t {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') => depth -= 1,
                        Tok::Punct(',') if depth == 0 => {
                            use_tree(&inner[start..j], path.clone(), out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                if start < inner.len() {
                    use_tree(&inner[start..], path.clone(), out);
                }
                return;
            }
            _ => return,
        }
        i += 1;
    }
    if path.last().map(String::as_str) == Some("self") {
        path.pop();
    }
    if !path.is_empty() {
        out.push((path, None));
    }
}

/// A path as seen from module `here`, made absolute; `None` for paths outside the crate.
fn absolute(path: &[String], here: &[String], children: &BTreeSet<String>, at_file_level: bool) -> Option<ModPath> {
    let mut base: ModPath = here.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) if at_file_level && children.contains(first) => {}
        _ => return None,
    }
    Some([base, rest.to_vec()].concat())
}

/// Every strongly connected group of more than one file, each named by one cycle through it.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let nodes: Vec<&String> =
        graph.keys().chain(graph.values().flatten()).collect::<BTreeSet<_>>().into_iter().collect();
    let index: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> =
        nodes.iter().map(|n| graph.get(*n).map(|s| s.iter().map(|t| index[t]).collect()).unwrap_or_default()).collect();
    let mut found = Vec::new();
    for group in strongly_connected(&succ) {
        if group.len() > 1 || succ[group[0]].contains(&group[0]) {
            let cycle = cycle_through(&succ, &group);
            let mut named: Vec<String> = cycle.iter().map(|&i| nodes[i].clone()).collect();
            named.push(nodes[cycle[0]].clone());
            found.push(named);
        }
    }
    found
}

/// Tarjan's algorithm, iterative.
fn strongly_connected(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut groups, mut next) = (Vec::new(), Vec::new(), 0);
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*edge) {
                *edge += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                group.sort();
                groups.push(group);
            }
        }
    }
    groups.sort();
    groups
}

/// A shortest cycle from the group's first node back to itself, staying inside the group.
fn cycle_through(succ: &[Vec<usize>], group: &[usize]) -> Vec<usize> {
    let start = group[0];
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &succ[v] {
            if w == start {
                let mut cycle = vec![v];
                while let Some(&p) = came_from.get(cycle.last().unwrap()) {
                    cycle.push(p);
                }
                cycle.reverse();
                if cycle[0] != start {
                    cycle.insert(0, start);
                }
                return cycle;
            }
            if group.contains(&w) && !came_from.contains_key(&w) && w != start {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}

fn graph(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (from, to) in edges {
        g.entry(from.to_string()).or_default().insert(to.to_string());
        g.entry(to.to_string()).or_default();
    }
    g
}

#[test]
fn the_cycle_finder_names_each_cycle() {
    let g = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("e", "f"), ("f", "e"), ("g", "g"), ("h", "i")]);
    assert_eq!(cycles(&g), vec![vec!["a", "b", "c", "a"], vec!["e", "f", "e"], vec!["g", "g"]]);
    let dag = graph(&[("a", "b"), ("b", "c"), ("a", "c"), ("d", "a")]);
    assert!(cycles(&dag).is_empty());
}

fn sources(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files.iter().map(|(f, s)| (f.to_string(), s.to_string())).collect()
}

#[test]
fn edges_come_from_paths_not_from_declarations_comments_or_tests() {
    let files = sources(&[
        ("lib.rs", "pub mod low; pub mod high; pub mod mid;"),
        // Declaring and re-exporting its children is not an edge; the re-export is followed.
        (
            "low/mod.rs",
            "mod shape;\npub use shape::Rect;\n/// Not [`crate::high`]: a comment.\nconst S: &str = \"crate::mid::X\";",
        ),
        ("low/shape.rs", "pub struct Rect;\n#[cfg(test)]\nmod tests { use crate::high::Thing; }"),
        ("mid.rs", "use crate::low::Rect;\npub fn f() -> super::low::Rect { Rect }"),
        ("high.rs", "use crate::{mid::{self, f}, low::Rect as R};\nfn g() { crate::mid::f(); }"),
    ]);
    let g = module_graph(&files);
    assert_eq!(g["low/mod.rs"], BTreeSet::new());
    assert_eq!(g["low/shape.rs"], BTreeSet::new());
    assert_eq!(g["mid.rs"], BTreeSet::from(["low/shape.rs".to_string()]));
    assert_eq!(g["high.rs"], BTreeSet::from(["mid.rs".to_string(), "low/shape.rs".to_string()]));
    assert!(cycles(&g).is_empty());
    assert_eq!(cycles(&rooms(&g)), Vec::<Vec<String>>::new());
}

#[test]
fn a_path_back_up_makes_a_cycle() {
    let files = sources(&[
        ("lib.rs", "pub mod agent;"),
        ("agent/mod.rs", "pub mod tasks;\npub struct Browser;\nfn run() { tasks::run_task(); }"),
        ("agent/tasks.rs", "use super::Browser;\npub fn run_task() {}"),
    ]);
    assert_eq!(cycles(&module_graph(&files)), vec![vec!["agent/mod.rs", "agent/tasks.rs", "agent/mod.rs"]]);
}

#[test]
fn rooms_that_reach_each_other_through_different_files_make_a_cycle() {
    let g = graph(&[
        ("snapshot/cdp.rs", "describe/mod.rs"),
        ("describe/mod.rs", "snapshot/mod.rs"),
        ("describe/mod.rs", "vocab.rs"),
    ]);
    assert!(cycles(&g).is_empty(), "no file-level cycle");
    assert_eq!(cycles(&rooms(&g)), vec![vec!["describe", "snapshot", "describe"]]);
}
