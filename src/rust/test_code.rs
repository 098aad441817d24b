//! Which parts of a Rust file are test code: a file in the crate's `tests/` or `benches/` folder,
//! `#[cfg(test)]` modules and functions, and functions marked `#[test]`, `#[tokio::test]`,
//! `#[rstest]` or `#[test_case(..)]`. Tests build old, broken or removed messages on purpose (to
//! check they are rejected), so rules stay silent there or offer no fix. Found once per file, before
//! the rules run (`Cx::in_test_code`).

use std::ops::Range;
use std::path::Path;

use crate::cx::Cx;
use proc_macro2::{TokenStream, TokenTree};

use crate::rust::syntax::{fn_item_range, mod_range};

#[derive(Debug, Default, Clone)]
pub struct TestCode {
    /// The whole file is test code.
    pub whole_file: bool,
    /// Byte ranges of test modules and functions, at any depth of modules and impls.
    pub ranges: Vec<Range<usize>>,
}

impl TestCode {
    pub fn of(cx: &Cx, file: &syn::File) -> TestCode {
        let mut ranges = Vec::new();
        collect(cx, &file.items, &mut ranges);
        TestCode { whole_file: in_test_folder(&cx.file.path, cx.crate_ctx.manifest.as_deref()), ranges }
    }

    pub fn is_empty(&self) -> bool {
        !self.whole_file && self.ranges.is_empty()
    }

    pub fn contains(&self, range: &Range<usize>) -> bool {
        self.whole_file || self.ranges.iter().any(|t| t.start <= range.start && range.end <= t.end)
    }
}

/// A `tests/` or `benches/` folder of the crate, not one that happens to hold the whole checkout;
/// with no manifest, the file's own folder.
fn in_test_folder(path: &Path, manifest: Option<&Path>) -> bool {
    let test_folder = |name: &std::ffi::OsStr| name == "tests" || name == "benches";
    match manifest.and_then(Path::parent) {
        Some(root) => match path.strip_prefix(root) {
            Ok(inside) => inside.parent().is_some_and(|p| p.components().any(|c| test_folder(c.as_os_str()))),
            Err(_) => false,
        },
        None => path.parent().and_then(Path::file_name).is_some_and(test_folder),
    }
}

/// `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(..)]`.
pub fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().segments.last().is_some_and(|s| s.ident == "test" || s.ident == "rstest" || s.ident == "test_case")
    })
}

/// `#[cfg(test)]`, `#[cfg(all(test, not(windows)))]`, but not `#[cfg(not(test))]`.
fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && matches!(&a.meta, syn::Meta::List(l) if names_test(&l.tokens)))
}

/// Whether a cfg predicate names `test` outside a `not(..)`.
fn names_test(tokens: &TokenStream) -> bool {
    let mut iter = tokens.clone().into_iter().peekable();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Ident(i) if i == "not" => {
                iter.next_if(|t| matches!(t, TokenTree::Group(_)));
            }
            TokenTree::Ident(i) if i == "test" => return true,
            TokenTree::Group(g) if names_test(&g.stream()) => return true,
            _ => {}
        }
    }
    false
}

fn collect(cx: &Cx, items: &[syn::Item], out: &mut Vec<Range<usize>>) {
    for item in items {
        match item {
            syn::Item::Mod(m) if is_cfg_test(&m.attrs) => out.push(mod_range(cx, m)),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect(cx, inner, out);
                }
            }
            syn::Item::Fn(f) if is_test_attr(&f.attrs) || is_cfg_test(&f.attrs) => out.push(fn_item_range(cx, f)),
            syn::Item::Impl(i) => {
                for member in &i.items {
                    if let syn::ImplItem::Fn(f) = member
                        && (is_test_attr(&f.attrs) || is_cfg_test(&f.attrs))
                    {
                        let start = cx.node_range(&f.sig).start;
                        out.push(start..cx.block_range(&f.block).end);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_folders_are_the_crates() {
        let manifest = Path::new("/w/repo/tests/server/Cargo.toml");
        assert!(!in_test_folder(Path::new("/w/repo/tests/server/src/main.rs"), Some(manifest)));
        assert!(in_test_folder(Path::new("/w/repo/tests/server/tests/it.rs"), Some(manifest)));
        assert!(in_test_folder(Path::new("/w/repo/tests/server/benches/b.rs"), Some(manifest)));
        assert!(in_test_folder(Path::new("tests/it.rs"), None));
        assert!(!in_test_folder(Path::new("src/tests.rs"), None));
    }

    #[test]
    fn cfg_predicates_that_name_test() {
        let names = |cfg: &str| names_test(&cfg.parse().unwrap());
        assert!(names("test"));
        assert!(names("all(test, not(target_arch = \"wasm32\"))"));
        assert!(names("any(test, feature = \"testing\")"));
        assert!(!names("not(test)"));
        assert!(!names("all(not(test), unix)"));
        assert!(!names("feature = \"test\""));
    }
}
