//! Output formats: each is a function from a run's result to a writer.

pub mod human;
pub mod json;

use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Code frames like rustc's (the default).
    Human,
    /// A JSON array, one object per finding.
    Json,
}
