//! The shape of the adapter, read from its source: a module per aggregate of the domain, each
//! holding the implementations of that aggregate's ports (and its group writers); no module or file
//! imports one that imports it back; and no file outgrows a reading.

use pulse_testing::layout::{crate_paths, first_circle, paths_below, source_files};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longer than this, a file holds more than one thing; the generated schema is exempt.
const MOST_LINES: usize = 600;

struct SourceFile {
    /// `apps::heartbeats`, `apps` (for `apps/mod.rs`), `store`...
    room: String,
    path: PathBuf,
    text: String,
}

fn read_crate() -> Vec<SourceFile> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    source_files(&src)
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(&src).expect("below src").with_extension("");
            let parts: Vec<String> =
                relative.iter().map(|p| p.to_string_lossy().into_owned()).filter(|p| p != "mod").collect();
            let text = std::fs::read_to_string(&path).expect("readable source");
            SourceFile { room: parts.join("::"), path, text }
        })
        .collect()
}

fn module_of(room: &str) -> &str {
    room.split("::").next().unwrap_or(room)
}

/// The file room a path below `crate::` lands in: its longest prefix that names a file.
fn target_room(path: &str, rooms: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len()).rev().map(|n| parts[..n].join("::")).find(|prefix| rooms.contains(prefix))
}

fn edges(files: &[SourceFile], group: impl Fn(&str) -> String) -> BTreeMap<String, BTreeSet<String>> {
    let rooms: BTreeSet<String> = files.iter().map(|f| f.room.clone()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let targets = crate_paths(&file.text).into_iter().filter_map(|p| target_room(&p, &rooms)).map(|t| group(&t));
        edges.entry(group(&file.room)).or_default().extend(targets);
    }
    edges
}

#[test]
fn no_module_or_file_imports_one_that_imports_it_back() {
    let files = read_crate();
    if let Some(circle) = first_circle(&edges(&files, |room| module_of(room).to_owned())) {
        panic!("modules import one another in a circle: {}", circle.join(" -> "));
    }
    if let Some(circle) = first_circle(&edges(&files, str::to_owned)) {
        panic!("files import one another in a circle: {}", circle.join(" -> "));
    }
}

/// `impl CampaignRepository for PgStore` sits in `campaigns`, because the port is
/// `pulse_domain::campaigns::ports::CampaignRepository`; the shared health ports sit in `health`.
#[test]
fn every_port_is_implemented_in_the_module_of_its_aggregate() {
    let files = read_crate();
    let mut implemented = BTreeSet::new();
    for file in &files {
        let ports: BTreeMap<String, String> = paths_below(&file.text, "pulse_domain")
            .into_iter()
            .filter_map(|path| {
                let parts: Vec<&str> = path.split("::").collect();
                match parts.as_slice() {
                    [aggregate, "ports", port] => Some(((*port).to_owned(), (*aggregate).to_owned())),
                    ["shared", "health", port] => Some(((*port).to_owned(), "health".to_owned())),
                    _ => None,
                }
            })
            .collect();
        for line in file.text.lines().filter(|l| l.starts_with("impl ") && l.ends_with(" for PgStore {")) {
            let port = line.trim_start_matches("impl ").trim_end_matches(" for PgStore {");
            let aggregate = ports.get(port).unwrap_or_else(|| {
                panic!("{}: {port} is implemented without naming its aggregate's ports", file.path.display())
            });
            assert_eq!(module_of(&file.room), aggregate, "{}: {port} belongs in {aggregate}", file.path.display());
            implemented.insert(port.to_owned());
        }
    }
    assert!(implemented.len() >= 15, "the ports were found: {implemented:?}");
}

#[test]
fn no_file_outgrows_a_reading() {
    for file in read_crate().iter().filter(|f| f.room != "schema") {
        let lines = file.text.lines().count();
        assert!(lines <= MOST_LINES, "{} has {lines} lines, more than {MOST_LINES}", file.path.display());
    }
}

#[test]
fn a_path_lands_in_the_file_that_defines_it() {
    let rooms: BTreeSet<String> = ["apps", "apps::statements", "rows"].into_iter().map(str::to_owned).collect();
    assert_eq!(target_room("apps::statements::BeatRow", &rooms).as_deref(), Some("apps::statements"));
    assert_eq!(target_room("apps::count", &rooms).as_deref(), Some("apps"));
    assert_eq!(target_room("rows::to_u32", &rooms).as_deref(), Some("rows"));
    assert_eq!(module_of("apps::statements"), "apps");
}

/// `docs/architecture.md` names every module of the adapter, so the document follows the code.
#[test]
fn the_architecture_document_names_every_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let document = std::fs::read_to_string(root.join("../../docs/architecture.md")).expect("the document");
    let modules: BTreeSet<String> = std::fs::read_dir(root.join("src"))
        .expect("the source folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.is_dir() || path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let name = path.file_name().expect("a name").to_string_lossy().into_owned();
            if path.is_dir() { format!("postgres/src/{name}/") } else { format!("postgres/src/{name}") }
        })
        .filter(|module| module != "postgres/src/lib.rs")
        .collect();
    let missing: Vec<&String> = modules.iter().filter(|m| !document.contains(&format!("`{m}`"))).collect();
    assert!(missing.is_empty(), "docs/architecture.md does not name {missing:?}");
}
