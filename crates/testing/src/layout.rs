//! A crate's shape read from its source, for the layout tests of the domain and its adapters: its
//! source files, the paths each names below `crate::`, and the first import circle among rooms.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`, in path order.
///
/// # Panics
/// When `dir` cannot be read.
pub fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    files
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every path the file names below `crate::`, in `use` statements (braces expanded) and inline,
/// with test modules left out: tests may reach anything.
///
/// # Panics
/// On a `use` statement without its `;` or with unbalanced braces.
pub fn crate_paths(text: &str) -> Vec<String> {
    paths_below(text, "crate")
}

/// As [`crate_paths`], below another root: `pulse_domain` for what an adapter implements.
///
/// # Panics
/// As [`crate_paths`].
pub fn paths_below(text: &str, root: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let used = format!("use {root}::");
    let inline = format!("{root}::");
    let mut paths = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find(&used) {
        let statement = &rest[at + used.len()..];
        let end = statement.find(';').expect("a use statement ends");
        let tree = statement[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let tree = tree.replace(", ", ",").replace("{ ", "{").replace(" }", "}").replace(":: ", "::");
        expand(&tree, "", &mut paths);
        rest = &statement[end..];
    }
    for (at, _) in code.match_indices(&inline) {
        let tail = &code[at + inline.len()..];
        let path: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let starts_a_name = code[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if starts_a_name && !code[..at].ends_with("use ") {
            paths.push(path.trim_end_matches(':').to_owned());
        }
    }
    paths
}

fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    match tree.find('{') {
        None => {
            for leaf in tree.split(',').filter(|l| !l.is_empty()) {
                let leaf = leaf.split(" as ").next().unwrap_or(leaf);
                out.push(format!("{prefix}{leaf}"));
            }
        }
        Some(open) => {
            let head = &tree[..open];
            let inner = &tree[open + 1..tree.rfind('}').expect("balanced braces")];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&inner[start..i], &format!("{prefix}{head}"), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand(&inner[start..], &format!("{prefix}{head}"), out);
        }
    }
}

/// The first circle of rooms that import one another, as `a -> b -> a`, or `None`. A room's
/// imports of itself do not count.
pub fn first_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        room: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if done.contains(room) {
            return None;
        }
        if let Some(at) = path.iter().position(|r| r == room) {
            return Some(path[at..].iter().cloned().chain([room.to_owned()]).collect());
        }
        path.push(room.to_owned());
        for next in edges.get(room).into_iter().flatten().filter(|next| *next != room) {
            if let Some(circle) = visit(next, edges, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(room.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|room| visit(room, edges, &mut Vec::new(), &mut done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_in_every_form() {
        let text = "use crate::a::models::{B, c::{D, E as F}};\nfn f() { crate::b::service::run(); }\n#[cfg(test)]\nuse crate::x::ports::Y;";
        assert_eq!(crate_paths(text), ["a::models::B", "a::models::c::D", "a::models::c::E", "b::service::run"]);
    }

    #[test]
    fn a_circle_of_any_length_is_found() {
        let edges = |pairs: &[(&str, &str)]| {
            let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (from, to) in pairs {
                map.entry((*from).to_owned()).or_default().insert((*to).to_owned());
                map.entry((*to).to_owned()).or_default();
            }
            map
        };
        assert_eq!(first_circle(&edges(&[("a", "b"), ("b", "c"), ("a", "c"), ("c", "c")])), None);
        assert_eq!(
            first_circle(&edges(&[("a", "b"), ("b", "c"), ("c", "a")])),
            Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
        );
    }
}
