//! Every relative link and anchor in the repository's documents resolves, so a renamed heading or
//! a moved file cannot leave a reader at a dead end.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Folders no document of ours lives in.
const SKIPPED_FOLDERS: [&str; 4] = ["target", ".git", "node_modules", "fuzz"];

struct Document {
    /// Each link's target as written, with the line it is on.
    links: Vec<(String, usize)>,
    /// The anchors a link may name: the headings' slugs and explicit HTML ids.
    anchors: BTreeSet<String>,
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository")
}

fn markdown_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("a folder") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().expect("a name").to_string_lossy().into_owned();
        if path.is_dir() {
            if !SKIPPED_FOLDERS.contains(&name.as_str()) {
                markdown_files(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path);
        }
    }
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, and every character other than
/// a letter, a mark, a digit, `_` or `-` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// The value of `attribute="…"` in an HTML fragment, if it has one.
fn html_attribute<'a>(html: &'a str, attribute: &str) -> Option<&'a str> {
    let start = html.find(&format!(" {attribute}=\""))? + attribute.len() + 3;
    html[start..].find('"').map(|end| &html[start..start + end])
}

fn read(path: &Path) -> Document {
    let text = std::fs::read_to_string(path).expect("a readable document");
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut links = Vec::new();
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut heading: Option<String> = None;
    for (event, range) in Parser::new_ext(&text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(heading) = heading.as_mut() {
                    heading.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let count = seen.entry(base.clone()).or_insert(0);
                anchors.insert(if *count == 0 { base.clone() } else { format!("{base}-{count}") });
                *count += 1;
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push((dest_url.into_string(), line_of(range.start)));
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                anchors.extend(["id", "name"].iter().filter_map(|a| html_attribute(&html, a)).map(str::to_owned));
            }
            _ => {}
        }
    }
    Document { links, anchors }
}

/// What is wrong with `target`, a link in the document at `from`, if anything.
fn broken(from: &Path, target: &str, documents: &BTreeMap<PathBuf, Document>) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") || target.starts_with('/') {
        return None;
    }
    let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
    let resolved = if file.is_empty() {
        from.to_path_buf()
    } else {
        let joined = from.parent().expect("a folder").join(file);
        match joined.canonicalize() {
            Ok(resolved) => resolved,
            Err(_) => return Some(format!("{file} does not exist")),
        }
    };
    if anchor.is_empty() || resolved.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let document = documents.get(&resolved)?;
    (!document.anchors.contains(anchor)).then(|| format!("{} has no heading #{anchor}", resolved.display()))
}

#[test]
fn every_relative_link_and_anchor_of_the_documents_resolves() {
    let root = repository();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    let documents: BTreeMap<PathBuf, Document> =
        files.iter().map(|path| (path.canonicalize().expect("a path"), read(path))).collect();
    assert!(documents.keys().any(|p| p.ends_with("docs/architecture.md")), "the documents were found");
    let mut problems = Vec::new();
    for (path, document) in &documents {
        for (target, line) in &document.links {
            if let Some(problem) = broken(path, target, &documents) {
                let shown = path.strip_prefix(&root).unwrap_or(path).display();
                problems.push(format!("{shown}:{line}: ({target}) {problem}"));
            }
        }
    }
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn anchors_are_the_slugs_github_gives_headings() {
    assert_eq!(slug("What one run does"), "what-one-run-does");
    assert_eq!(
        slug("Measured on a tenth machine (2026-11-28, tenth session)"),
        "measured-on-a-tenth-machine-2026-11-28-tenth-session"
    );
    assert_eq!(slug("`PULSE_TRUSTED_PROXIES` and ranges"), "pulse_trusted_proxies-and-ranges");
    assert_eq!(slug("Lever: one group in flight"), "lever-one-group-in-flight");
}

#[test]
fn a_missing_file_and_a_missing_heading_are_found() {
    let root = repository();
    let readme = root.join("README.md");
    let documents: BTreeMap<PathBuf, Document> = [(readme.clone(), read(&readme))].into_iter().collect();
    assert!(broken(&readme, "docs/no-such-file.md", &documents).is_some());
    assert!(broken(&readme, "#no-such-heading", &documents).is_some());
    assert!(broken(&readme, "https://example.com/#anything", &documents).is_none());
}
