//! Rust sources: parsing with exact spans (`parse`) and the one visitor pass that feeds rules
//! (`visitor`), plus small helpers rules share for reading syntax (`syntax`). A file with a
//! syntax error is parsed item by item (`recover`), so the items that parse are still checked.

pub mod lexing;
pub mod loops;
pub mod macro_body;
pub mod mrtr_mentions;
pub mod parse;
pub mod quoted;
pub mod recover;
pub mod rejects;
pub mod requests;
pub mod simple_exprs;
pub mod syntax;
pub mod test_code;
pub mod visitor;
