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

/// A screen: a raw statement longer than this lives in a `.sql` file beside its module.
const SCREEN_LINES: usize = 25;

/// Files whose statements are administration, DDL or test fixtures, which nothing prepares twice.
const ADMIN_FILES: [&str; 4] = ["migrate", "local", "test_db", "statement"];

/// The code of a file before its test module, which may write fixtures however it likes.
fn production_code(text: &str) -> &str {
    text.find("\n#[cfg(test)]").or_else(|| text.find("\n#[cfg(all(test")).map_or(text, |end| &text[..end])
}

/// The string literals of Rust source (plain and raw), outside comments.
fn string_literals(code: &str) -> Vec<&str> {
    let bytes = code.as_bytes();
    let mut literals = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = code[i..].find('\n').map_or(bytes.len(), |end| i + end);
            }
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                i = code[i + 2..].find('\'').map_or(bytes.len(), |end| i + 2 + end + 1);
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 3,
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && !bytes[i.saturating_sub(1)].is_ascii_alphanumeric() =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|b| **b == b'#').count();
                let start = i + 1 + hashes + 1;
                let end_marker = format!("\"{}", "#".repeat(hashes));
                let end = code[start..].find(&end_marker).map_or(bytes.len(), |end| start + end);
                literals.push(&code[start..end]);
                i = end + end_marker.len();
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                literals.push(&code[start..j.min(bytes.len())]);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    literals
}

/// Raw SQL is either prepared once per connection (`cached()`) or, longer than a screen, read
/// from a `.sql` file beside its module.
#[test]
fn raw_statements_are_cached_and_no_longer_than_a_screen() {
    for file in read_crate().iter().filter(|f| !ADMIN_FILES.contains(&f.room.as_str())) {
        let code = production_code(&file.text);
        for (at, _) in code.match_indices("sql_query(") {
            let statement = &code[at..];
            // To its first run: a statement may be bound in steps (`let query = sql_query(…)…;`).
            let end = statement.find(".await").unwrap_or(statement.len());
            assert!(
                statement[..end].contains(".cached()"),
                "{}: a raw statement is not cached: {}",
                file.path.display(),
                statement.lines().next().unwrap_or_default()
            );
        }
        for literal in string_literals(code) {
            let lines = literal.lines().count();
            assert!(
                lines <= SCREEN_LINES,
                "{}: a {lines}-line statement belongs in a .sql file beside its module: {}",
                file.path.display(),
                literal.lines().next().unwrap_or_default()
            );
        }
    }
}

/// Every `.sql` file of the source is read by its module.
#[test]
fn every_sql_file_is_read_by_the_module_beside_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = vec![src];
    let mut sql_files = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "sql") {
                sql_files.push(path);
            }
        }
    }
    for sql in sql_files {
        let name = sql.file_name().expect("a name").to_string_lossy().into_owned();
        let folder = sql.parent().expect("a folder");
        let read = std::fs::read_dir(folder).expect("its folder").any(|entry| {
            let path = entry.expect("an entry").path();
            path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).expect("source").contains(&format!("include_str!(\"{name}\")"))
        });
        assert!(read, "{} is read by no module beside it", sql.display());
    }
}

#[test]
fn string_literals_are_found_outside_comments() {
    let code = "let a = \"one\\\"two\"; // \"not\"\nlet b = r#\"x\"y\"#; let c = '\"'; let d: &'static str = \"z\";";
    assert_eq!(string_literals(code), ["one\\\"two", "x\"y", "z"]);
}
