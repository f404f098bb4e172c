//! What campaigns are made of, and their rules.

mod audience;
mod campaign;
mod copies;
mod launch;
mod survey;

pub use audience::*;
pub use campaign::*;
pub use copies::*;
pub use launch::*;
pub use survey::*;
