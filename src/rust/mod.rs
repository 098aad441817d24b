//! Rust sources: parsing with exact spans (`parse`) and the one visitor pass that feeds rules
//! (`visitor`), plus small helpers rules share for reading syntax (`syntax`).

pub mod macro_body;
pub mod parse;
pub mod simple_exprs;
pub mod syntax;
pub mod test_code;
pub mod visitor;
