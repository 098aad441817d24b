//! What the crate model says about the roots uses the codemod would rewrite, and which migration
//! that calls for (issue #17): a tool's working directory becomes a documented tool parameter; an
//! allow-list (roots compared against a path the tool takes) stays server configuration; roots
//! passed on whole, or used in a way the model cannot classify, are left with the reason.
//!
//! The analysis is the model's (`model::roots::RootsFlow`); this module only builds the model of
//! the codemod's files and maps the codemod's functions to the model's.

use std::path::Path;

use super::CrateFile;
use super::index::{FnSite, Index, ParsedFile};
use super::text::Src;
use crate::config::RootsTo;
use crate::model::roots::RootsPurpose;
use crate::model::{CrateModel, FnId};

/// The crate model of the codemod's files, and the model's id of each of the codemod's functions.
pub struct Purposes {
    model: CrateModel,
    /// By index into `Index::fns`.
    ids: Vec<Option<FnId>>,
}

/// How a use whose purpose is unknown may still be migrated, said at the end of its reason (where
/// the caller knows better, it says what would work instead).
pub const PARAM_HINT: &str = "; pass `--roots-to param` to make it a tool parameter anyway";

/// The migration a roots use gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Migration {
    /// A documented tool parameter.
    Param,
    /// Server configuration: what the server puts in the roots' place stays, the client's refresh
    /// goes. `allow_list`: the roots extend a list paths are checked against (else `--roots-to
    /// config` asked for it, and the code reading the place sees only the server's value).
    Config { allow_list: bool },
    /// Left as it is, for this reason.
    Leave(String),
}

impl Purposes {
    pub fn build(
        files: &[CrateFile],
        parsed: &[Option<ParsedFile>],
        index: &Index,
        bases: &[usize],
        crate_dir: Option<&Path>,
    ) -> Purposes {
        let ctx = crate::context::CrateContext::default();
        let mut facts = Vec::new();
        // The model's file id of each of the codemod's files.
        let mut model_file: Vec<Option<usize>> = vec![None; files.len()];
        for (i, (f, p)) in files.iter().zip(parsed).enumerate() {
            let Some(p) = p else { continue };
            let source = crate::source::SourceFile::new(f.path.clone(), f.display.clone(), f.text.clone());
            let mut cx = crate::cx::Cx::new(&source, &ctx, crate::cx::Origin::Rust);
            cx.base = p.base;
            cx.test_code = crate::rust::test_code::TestCode::of(&cx, &p.ast);
            let relative = crate_dir.and_then(|d| f.path.strip_prefix(d).ok()).unwrap_or(&f.path);
            let module = crate::model::module_of(relative);
            model_file[i] = Some(facts.len());
            facts.push(crate::model::extract::file_facts(&cx, &p.ast, module, true, false));
        }
        let model = CrateModel::new(facts);
        let ids = index
            .fns
            .iter()
            .map(|site| {
                let file = model_file[site.file]?;
                let src = Src { text: &files[site.file].text, base: bases[site.file] };
                let name = src.span(site.sig.ident.span());
                model.fn_ids().find(|id| model.file_of(*id) == file && model.func(*id).name_range == name)
            })
            .collect();
        Purposes { model, ids }
    }

    fn ids(&self, fns: &[usize]) -> Vec<FnId> {
        fns.iter().filter_map(|f| self.ids.get(*f).copied().flatten()).collect()
    }

    /// Whether the model knows the function fills `self.<field>` (or a place under it) with the
    /// client's roots: a lock it takes for something else (a stored peer) is no roots cache.
    pub fn stores_roots_in(&self, f: usize, field: &str) -> bool {
        let Some(id) = self.ids(&[f]).first().copied() else { return false };
        self.model.roots().places().any(|(_, path, writer)| writer == id && path.iter().any(|p| p == field))
    }

    /// A `self` place the model knows the function fills with the client's roots (`cache.dirs`).
    pub fn roots_place(&self, f: usize) -> Option<String> {
        let id = self.ids(&[f]).first().copied()?;
        self.model.roots().places().find(|(_, _, writer)| *writer == id).map(|(_, path, _)| path.join("."))
    }

    /// `roots_place` with the type that holds the place: (`Shared`, `dirs`).
    pub fn roots_store(&self, f: usize) -> Option<(String, String)> {
        let id = self.ids(&[f]).first().copied()?;
        let (ty, path, _) = self.model.roots().places().find(|(_, _, writer)| *writer == id)?;
        let ty = ty.rsplit("::").next().unwrap_or(ty);
        Some((ty.to_owned(), path.join(".")))
    }

    /// The calls the function hands the whole roots list to, as written (`session.set_roots`).
    pub fn passed_to(&self, f: usize) -> Vec<String> {
        self.model.roots().passed_to(&self.model, &self.ids(&[f]))
    }

    /// Whether what the functions do with the roots rules out a tool parameter whatever their
    /// shape: paths are compared against them (an allow-list), or the list is passed on whole.
    pub fn rules_out_param(&self, fns: &[usize]) -> bool {
        let (ids, flow) = (self.ids(fns), self.model.roots());
        flow.compares(&self.model, &ids) || !flow.passed_to(&self.model, &ids).is_empty()
    }

    /// Whether the function is test code (`#[test]`, `#[tokio::test]`, `#[cfg(test)]`).
    pub fn is_test(&self, f: usize, site: &FnSite) -> bool {
        crate::rust::test_code::is_test_attr(site.attrs)
            || self.ids(&[f]).first().is_some_and(|id| self.model.func(*id).test)
    }

    /// The migration for the roots that the functions `fns` (a tool and the helpers it calls, or
    /// the tools reading one cache) use, as the model classifies them and `roots_to` forces.
    /// `config_possible`: the shape has a configured list to keep (else `Config` is refused with
    /// `no_config`).
    pub fn migration(
        &self,
        fns: &[usize],
        what: &str,
        roots_to: Option<RootsTo>,
        config_possible: Result<(), String>,
    ) -> Migration {
        let ids = self.ids(fns);
        let flow = self.model.roots();
        let passed = flow.passed_to(&self.model, &ids);
        let allow_list = flow.compares(&self.model, &ids);
        if !passed.is_empty() {
            let to: Vec<String> = passed.iter().map(|c| format!("`{c}`")).collect();
            // The allow-list is the fact that rules out a parameter: said first.
            let compared =
                if allow_list { "paths are compared against the roots (read as an allow-list), and " } else { "" };
            return Migration::Leave(format!(
                "{what}: {compared}the roots list is passed on whole (to {}): what that component does with it \
                 decides the migration, so the codemod leaves it",
                to.join(", ")
            ));
        }
        let purpose = flow.purpose_in(&self.model, &ids);
        let config = |why: &str| match &config_possible {
            Ok(()) => Migration::Config { allow_list: true },
            Err(no) => Migration::Leave(format!("{what}: {why}, but {no}")),
        };
        match (roots_to, allow_list, purpose) {
            // Planned by `mrtr.rs`, which never asks for a migration.
            (Some(RootsTo::Mrtr), _, _) => Migration::Leave(format!("{what}: `--roots-to mrtr` keeps the roots")),
            (Some(RootsTo::Param), true, _) => Migration::Leave(format!(
                "{what}: paths are compared against the roots (read as an allow-list): `--roots-to param` would let every \
                 client choose any directory, so the codemod refuses it; migrate it to server configuration"
            )),
            (_, true, _) => {
                config("paths are compared against the roots (read as an allow-list, so server configuration)")
            }
            // Not a list paths are checked against: nothing needs seeding for it to stay safe.
            (Some(RootsTo::Config), false, _) => Migration::Config { allow_list: false },
            (_, false, RootsPurpose::WorkingDir) | (Some(RootsTo::Param), false, _) => Migration::Param,
            (None, false, _) => Migration::Leave(format!(
                "{what}: the crate model cannot tell what the roots are used for (no path is joined onto one, \
                 walked or run in, and none is compared against a path), so they are not known to be a working \
                 directory{PARAM_HINT}"
            )),
        }
    }
}
