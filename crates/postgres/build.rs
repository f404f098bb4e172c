//! `embed_migrations!` reads the migrations folder at compile time; cargo does not know that, so
//! without this a migration added to an already-built checkout was left out of the binary.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
