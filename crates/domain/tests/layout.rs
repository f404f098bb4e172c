//! The shape of the crate, read from its `use` lines: every aggregate has the same three rooms,
//! models import only shared types, ids, errors and other aggregates' models, only services
//! import ports, and no room imports another that imports it back.

use pulse_testing::layout::{crate_paths, first_circle, source_files};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOMS: [&str; 3] = ["models", "ports", "service"];
/// The ports that live in `shared`: a model never holds one.
const SHARED_PORTS: [&str; 3] = ["shared::crypto::Crypto", "shared::clock::Clock", "shared::health::HealthCheck"];

/// A room of the crate: `campaigns::models`, `shared::paging`, `error`...
type Room = String;

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
    let files = source_files(&src);
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
    let edges: BTreeMap<Room, BTreeSet<Room>> = c
        .imports
        .iter()
        .map(|(room, imports)| (room.clone(), imports.iter().map(|(_, p)| target_room(p)).collect()))
        .collect();
    if let Some(circle) = first_circle(&edges) {
        panic!("import circle: {}", circle.join(" -> "));
    }
}

#[test]
fn paths_land_in_their_rooms() {
    assert_eq!(target_room("a::models::c::D"), "a::models");
    assert_eq!(target_room("shared::clock::Clock"), "shared::clock");
    assert_eq!(target_room("error::Result"), "error");
    assert_eq!(room_of(Path::new("campaigns/models/survey.rs")), "campaigns::models");
    assert_eq!(room_of(Path::new("webhooks/service/mod.rs")), "webhooks::service");
    assert_eq!(room_of(Path::new("shared/paging.rs")), "shared::paging");
}

/// `docs/architecture.md` names every folder of the domain, so the document follows the code.
#[test]
fn the_architecture_document_names_every_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let document = std::fs::read_to_string(root.join("../../docs/architecture.md")).expect("the document");
    for entry in std::fs::read_dir(root.join("src")).expect("the source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            let name = path.file_name().expect("a name").to_string_lossy().into_owned();
            assert!(document.contains(&format!("`{name}/`")), "docs/architecture.md does not name {name}/");
        }
    }
}
