//! The shape of the crate, read from its `use` lines: every aggregate has the same three rooms,
//! models import only shared types, ids, errors and other aggregates' models, only services
//! import ports, and no room imports another that imports it back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOMS: [&str; 3] = ["models", "ports", "service"];
/// The ports that live in `shared`: a model never holds one.
const SHARED_PORTS: [&str; 3] = ["shared::crypto::Crypto", "shared::clock::Clock", "shared::health::HealthCheck"];

/// A room of the crate: `campaigns::models`, `shared::paging`, `error`...
type Room = String;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The room a source file belongs to, from its path below `src`.
fn room_of(relative: &Path) -> Room {
    let parts: Vec<String> =
        relative.with_extension("").iter().map(|p| p.to_string_lossy().into_owned()).filter(|p| p != "mod").collect();
    match parts.as_slice() {
        [single] => single.clone(),
        [first, second, ..] => format!("{first}::{second}"),
        [] => "lib".into(),
    }
}

/// Every path the file names below `crate::`, in `use` statements (braces expanded) and inline,
/// with test modules left out: tests may reach anything.
fn crate_paths(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut paths = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("use crate::") {
        let statement = &rest[at + "use crate::".len()..];
        let end = statement.find(';').expect("a use statement ends");
        let tree = statement[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let tree = tree.replace(", ", ",").replace("{ ", "{").replace(" }", "}").replace(":: ", "::");
        expand(&tree, "", &mut paths);
        rest = &statement[end..];
    }
    for (at, _) in code.match_indices("crate::") {
        let tail = &code[at + "crate::".len()..];
        let path: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        if !code[..at].ends_with("use ") {
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

/// The room a path below `crate::` lands in.
fn target_room(path: &str) -> Room {
    let parts: Vec<&str> = path.split("::").collect();
    match parts.as_slice() {
        [single] => (*single).to_owned(),
        [first, second, ..] if *first == "shared" || ROOMS.contains(second) => format!("{first}::{second}"),
        [first, ..] => (*first).to_owned(),
        [] => String::new(),
    }
}

struct Crate {
    /// Each room's imports, by the file that makes them.
    imports: BTreeMap<Room, Vec<(PathBuf, String)>>,
    aggregates: BTreeSet<String>,
}

fn read_crate() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut imports: BTreeMap<Room, Vec<(PathBuf, String)>> = BTreeMap::new();
    let mut aggregates = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("below src").to_path_buf();
        if relative.components().count() > 1 && !relative.starts_with("shared") {
            aggregates.insert(relative.iter().next().expect("a folder").to_string_lossy().into_owned());
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        let room = room_of(&relative);
        let entry = imports.entry(room).or_default();
        entry.extend(crate_paths(&text).into_iter().map(|p| (relative.clone(), p)));
    }
    Crate { imports, aggregates }
}

#[test]
fn every_aggregate_has_only_the_three_rooms() {
    let c = read_crate();
    for room in c.imports.keys() {
        if let Some((aggregate, name)) = room.split_once("::")
            && c.aggregates.contains(aggregate)
        {
            assert!(ROOMS.contains(&name), "{room}: an aggregate holds only models, ports and service");
        }
    }
    for aggregate in &c.aggregates {
        assert!(c.imports.contains_key(&format!("{aggregate}::models")), "{aggregate} has no models");
    }
}

#[test]
fn models_import_only_shared_types_ids_errors_and_models() {
    let c = read_crate();
    for (room, imports) in &c.imports {
        if !room.ends_with("::models") {
            continue;
        }
        for (file, path) in imports {
            let target = target_room(path);
            let allowed = target == "error"
                || target == "ids"
                || (target.starts_with("shared::") && !SHARED_PORTS.iter().any(|port| path.starts_with(port)))
                || target.ends_with("::models");
            assert!(
                allowed,
                "{} imports crate::{path}: models import only shared types, ids, errors and models",
                file.display()
            );
        }
    }
}

#[test]
fn only_services_import_ports() {
    let c = read_crate();
    for (room, imports) in &c.imports {
        for (file, path) in imports {
            let target = target_room(path);
            let names_a_port = target.ends_with("::ports") || SHARED_PORTS.iter().any(|port| path.starts_with(port));
            let importer_may = room.ends_with("::service") || room.ends_with("::ports") || room.starts_with("shared::");
            assert!(!names_a_port || importer_may, "{} imports the port crate::{path}", file.display());
            assert!(
                !target.ends_with("::service") || room.ends_with("::service"),
                "{} imports the service crate::{path}",
                file.display()
            );
        }
    }
}

#[test]
fn no_room_imports_one_that_imports_it_back() {
    let c = read_crate();
    let edges: BTreeMap<&Room, BTreeSet<Room>> = c
        .imports
        .iter()
        .map(|(room, imports)| (room, imports.iter().map(|(_, p)| target_room(p)).filter(|t| t != room).collect()))
        .collect();
    fn visit<'a>(
        room: &'a Room,
        edges: &'a BTreeMap<&Room, BTreeSet<Room>>,
        path: &mut Vec<&'a Room>,
        done: &mut BTreeSet<&'a Room>,
    ) {
        if done.contains(room) {
            return;
        }
        if let Some(at) = path.iter().position(|r| *r == room) {
            let circle: Vec<&str> = path[at..].iter().map(|r| r.as_str()).chain([room.as_str()]).collect();
            panic!("import circle: {}", circle.join(" -> "));
        }
        path.push(room);
        for next in edges.get(room).into_iter().flatten() {
            if let Some((key, _)) = edges.get_key_value(next) {
                visit(key, edges, path, done);
            }
        }
        path.pop();
        done.insert(room);
    }
    let mut done = BTreeSet::new();
    for room in edges.keys() {
        visit(room, &edges, &mut Vec::new(), &mut done);
    }
}

#[test]
fn the_reader_sees_imports_in_every_form() {
    let text = "use crate::a::models::{B, c::{D, E as F}};\nfn f() { crate::b::service::run(); }\n#[cfg(test)]\nuse crate::x::ports::Y;";
    assert_eq!(crate_paths(text), ["a::models::B", "a::models::c::D", "a::models::c::E", "b::service::run"]);
    assert_eq!(target_room("a::models::c::D"), "a::models");
    assert_eq!(target_room("shared::clock::Clock"), "shared::clock");
    assert_eq!(target_room("error::Result"), "error");
    assert_eq!(room_of(Path::new("campaigns/models/survey.rs")), "campaigns::models");
    assert_eq!(room_of(Path::new("webhooks/service/mod.rs")), "webhooks::service");
    assert_eq!(room_of(Path::new("shared/paging.rs")), "shared::paging");
}
