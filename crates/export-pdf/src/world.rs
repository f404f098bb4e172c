//! The closed world typst compiles in: one template, one data file, the shipped fonts, nothing
//! from the disk or the network.

use std::sync::Arc;

use typst::diag::{FileError, FileResult};
use typst::foundations::{Bytes, Datetime};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};

const TEMPLATE: &str = include_str!("../report/report.typ");
/// The name the template reads its data from.
const DATA_FILE: &str = "report.json";

const FONTS: [(&str, &[u8]); 4] = [
    ("NotoSans-Regular", include_bytes!("../fonts/NotoSans-Regular.ttf")),
    ("NotoSans-Bold", include_bytes!("../fonts/NotoSans-Bold.ttf")),
    ("NotoSansDevanagari-Regular", include_bytes!("../fonts/NotoSansDevanagari-Regular.ttf")),
    ("NotoSansDevanagari-Bold", include_bytes!("../fonts/NotoSansDevanagari-Bold.ttf")),
];

/// What every rendering shares: the standard library, the parsed template and the fonts.
pub(crate) struct Typesetting {
    library: LazyHash<Library>,
    book: LazyHash<FontBook>,
    fonts: Vec<Font>,
    template: Source,
    data_id: FileId,
}

impl Typesetting {
    /// `Err` names a shipped font that does not load.
    pub(crate) fn new() -> Result<Self, String> {
        let mut fonts = Vec::with_capacity(FONTS.len());
        for (name, bytes) in FONTS {
            let font = Font::new(Bytes::new(bytes), 0).ok_or_else(|| format!("the font {name} does not load"))?;
            fonts.push(font);
        }
        let book = FontBook::from_fonts(&fonts);
        let file = |name: &str| {
            VirtualPath::new(name)
                .map(|path| RootedPath::new(VirtualRoot::Project, path).intern())
                .map_err(|e| format!("{e:?}"))
        };
        let main_id = file("report.typ")?;
        Ok(Self {
            library: LazyHash::new(Library::builder().build()),
            book: LazyHash::new(book),
            fonts,
            template: Source::new(main_id, TEMPLATE.to_owned()),
            data_id: file(DATA_FILE)?,
        })
    }
}

/// One rendering: the shared parts and this report's data.
pub(crate) struct ReportWorld {
    shared: Arc<Typesetting>,
    data: Bytes,
}

impl ReportWorld {
    pub(crate) fn new(shared: Arc<Typesetting>, data: Vec<u8>) -> Self {
        Self { shared, data: Bytes::new(data) }
    }
}

impl World for ReportWorld {
    fn library(&self) -> &LazyHash<Library> {
        &self.shared.library
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &self.shared.book
    }

    fn main(&self) -> FileId {
        self.shared.template.id()
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.shared.template.id() { Ok(self.shared.template.clone()) } else { Err(FileError::AccessDenied) }
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        if id == self.shared.data_id { Ok(self.data.clone()) } else { Err(FileError::AccessDenied) }
    }

    fn font(&self, index: usize) -> Option<Font> {
        self.shared.fonts.get(index).cloned()
    }

    /// The report shows the times it is given; it never asks for today.
    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        None
    }
}
