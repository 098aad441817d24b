//! What mcp-lint knows about the code around a file: the crate it belongs to (which MCP SDK, which
//! version, from `Cargo.toml` and `Cargo.lock`) and the role the code plays (server or client).
//! Rules read this instead of guessing on their own, and severity is decided here, in one place.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::diagnostic::Severity;

mod test_sources;
pub use test_sources::is_test_path;

/// The MCP SDKs whose spellings rules know (see `rules/*.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sdk {
    /// The official SDK, crate `rmcp`.
    Rmcp,
    /// `rust-mcp-sdk` / `rust-mcp-schema`.
    RustMcpSdk,
    Turbomcp,
    Pmcp,
    UltrafastMcp,
    McpAttr,
    Turul,
    Fastmcp,
    McpCore,
    /// Another crate with `mcp` in its name.
    Other,
}

impl Sdk {
    /// The SDK a dependency name belongs to, if it is one.
    pub fn from_crate_name(name: &str) -> Option<Sdk> {
        let sdk = match name {
            "rmcp" | "rmcp-macros" => Sdk::Rmcp,
            "rust-mcp-sdk" | "rust-mcp-schema" | "rust-mcp-transport" => Sdk::RustMcpSdk,
            "pmcp" => Sdk::Pmcp,
            "mcp-attr" => Sdk::McpAttr,
            "mcp-core" => Sdk::McpCore,
            n if n.starts_with("turbomcp") => Sdk::Turbomcp,
            n if n.starts_with("ultrafast-mcp") => Sdk::UltrafastMcp,
            n if n.starts_with("turul-mcp") => Sdk::Turul,
            n if n.starts_with("fastmcp") => Sdk::Fastmcp,
            n if n.split(['-', '_']).any(|part| part == "mcp" || part == "mcpr") => Sdk::Other,
            _ => return None,
        };
        Some(sdk)
    }

    /// The crate name as written in `use` paths, for SDKs detected from imports.
    pub fn from_use_root(root: &str) -> Option<Sdk> {
        Sdk::from_crate_name(&root.replace('_', "-"))
    }
}

/// One MCP SDK the crate depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdkDependency {
    pub sdk: Sdk,
    pub crate_name: String,
    /// The locked version from `Cargo.lock` when there is one, else the requirement in `Cargo.toml`
    /// (the workspace's, for `rmcp = { workspace = true }`).
    pub version: Option<String>,
    /// The crate of the same workspace (a path dependency) the SDK comes through, where the crate
    /// does not name the SDK itself: `lr-server` → `lr-mcp` → `rmcp`.
    pub via: Option<String>,
}

/// The crate a file belongs to. A file outside any crate gets the empty context.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateContext {
    pub manifest: Option<PathBuf>,
    pub name: Option<String>,
    pub sdks: Vec<SdkDependency>,
    /// Every dependency's crate name (normal, dev, build and the workspace's), for fixes that
    /// would add one.
    pub dependencies: Vec<String>,
    /// Crates it depends on by path that are not an SDK (its workspace's other members): their
    /// code is the project's own, so `use lr_mcp::…` names no SDK.
    pub own_crates: Vec<String>,
    /// The folders of the crates whose code is the crate's own (its path dependencies that are
    /// no SDK, and theirs): the protocol revisions they name count for the crate's era.
    pub own_code: Vec<PathBuf>,
    /// Which protocol revisions the crate targets, decided once for the whole crate.
    pub era: EraDecision,
}

impl CrateContext {
    pub fn uses(&self, sdk: Sdk) -> bool {
        self.sdks.iter().any(|d| d.sdk == sdk)
    }

    /// Whether the manifest names the crate `name` among its dependencies.
    pub fn depends_on(&self, name: &str) -> bool {
        self.dependencies.iter().any(|d| d == name)
    }

    /// The context of a file with no `Cargo.toml` above it.
    pub fn outside_any_crate() -> CrateContext {
        let reason = "not in a crate (no Cargo.toml above it): no protocol version or SDK version tells; \
                      checked as a migration to 2026-07-28";
        CrateContext { era: EraDecision { era: Era::Unknown, reason: reason.into() }, ..Default::default() }
    }

    /// The version of an SDK the crate uses, as `(major, minor)` when it can be read.
    pub fn sdk_version(&self, sdk: Sdk) -> Option<(u64, u64)> {
        let dep = self.sdks.iter().find(|d| d.sdk == sdk)?;
        parse_version(dep.version.as_deref()?)
    }

    /// Reads a manifest and, when one is found at or above it, the lock file; then decides the
    /// crate's era from its sources and SDK version.
    pub fn from_manifest(manifest: &Path) -> CrateContext {
        CrateContext::from_manifest_with(manifest, &era::scan_crate)
    }

    /// `from_manifest` with the era signals of a crate's folder from `signals_of` (collected by
    /// the run, or a scan of the folder): the crate's own, and those of the sibling crates whose
    /// code is its own (`own_code`).
    pub fn from_manifest_with(manifest: &Path, signals_of: &dyn Fn(&Path) -> era::Signals) -> CrateContext {
        let mut cx = CrateContext::read_manifest(manifest);
        let signals = manifest.parent().map(signals_of).unwrap_or_default();
        let mut siblings = era::Signals::default();
        for dir in &cx.own_code {
            siblings.merge(&signals_of(dir));
        }
        cx.era = era::decide(&cx, &signals, &siblings);
        cx
    }

    fn read_manifest(manifest: &Path) -> CrateContext {
        ManifestReader::default().read(manifest)
    }

    /// How severe a finding of this impact is for this crate: the one place severity is decided.
    /// Removed behaviour is an error unless the crate is dual-era (serving legacy clients the old
    /// way is allowed there); breaking a MUST of 2026-07-28 is always an error; deprecations are
    /// warnings.
    pub fn severity_for(&self, impact: Impact) -> Severity {
        match impact {
            Impact::Removed if self.era.era == Era::Dual => Severity::Warning,
            Impact::Removed | Impact::Violation => Severity::Error,
            Impact::Deprecated { .. } | Impact::Housekeeping => Severity::Warning,
        }
    }
}

/// `"3.1.4"`, `"^2.2"`, `"=1.8.0"` → `(major, minor)`.
fn parse_version(v: &str) -> Option<(u64, u64)> {
    let v = v.trim_start_matches(|c: char| !c.is_ascii_digit());
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

pub use era::{Era, EraDecision};

/// Why a rule's findings matter, which decides their severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impact {
    /// Relies on something 2026-07-28 removed.
    Removed,
    /// Breaks a MUST of 2026-07-28.
    Violation,
    /// Uses something 2026-07-28 deprecates, with the earliest date it may be removed
    /// (`"2027-07-28"` for roots, sampling and logging, SEP-2577).
    Deprecated { earliest_removal: &'static str },
    /// About mcp-lint's own comments, not the protocol (`unused-suppression`): a warning.
    Housekeeping,
}

impl Impact {
    pub fn earliest_removal(self) -> Option<&'static str> {
        match self {
            Impact::Deprecated { earliest_removal } => Some(earliest_removal),
            _ => None,
        }
    }
}

/// The protocol era a crate targets.
pub mod era {
    use std::path::{Path, PathBuf};

    use aho_corasick::AhoCorasick;

    use super::{CrateContext, Sdk};

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Era {
        /// 2026-07-28 only.
        Modern,
        /// Both 2026-07-28 and older revisions (legacy clients still get `initialize`).
        Dual,
        /// Only revisions before 2026-07-28: findings say what must change to migrate.
        Legacy,
        /// Nothing tells: treated as a migration to 2026-07-28.
        #[default]
        Unknown,
    }

    impl Era {
        pub fn as_str(self) -> &'static str {
            match self {
                Era::Modern => "2026-07-28",
                Era::Dual => "dual-era",
                Era::Legacy => "legacy",
                Era::Unknown => "unknown",
            }
        }

        /// The names a config file uses (`era = "dual"`).
        pub fn from_config(s: &str) -> Option<Era> {
            match s {
                "2026-07-28" | "modern" => Some(Era::Modern),
                "dual" | "dual-era" => Some(Era::Dual),
                "legacy" => Some(Era::Legacy),
                _ => None,
            }
        }
    }

    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct EraDecision {
        pub era: Era,
        /// The evidence, for users: "`\"2026-07-28\"` in src/main.rs:12 and rmcp 3.11.0".
        pub reason: String,
    }

    impl EraDecision {
        /// A fix that changes what older revisions' peers see, as safe as the crate's revisions
        /// make it: safe only where it targets 2026-07-28 alone; unsafe where it still serves
        /// older revisions, its title saying what their peers then see (`dual`, `legacy`:
        /// "whose clients are told -32002 …"), and where nothing tells which revisions it serves
        /// (a crate of unknown era may well be a legacy one whose SDK version could not be read).
        pub fn fix_applicability(
            &self,
            title: &str,
            dual: &str,
            legacy: &str,
        ) -> (crate::diagnostic::Applicability, String) {
            use crate::diagnostic::Applicability::{Safe, Unsafe};
            let reason = &self.reason;
            match self.era {
                Era::Modern => (Safe, title.to_owned()),
                Era::Dual => (
                    Unsafe,
                    format!("{title} (unsafe: this crate also serves revisions before 2026-07-28, {reason}, {dual})"),
                ),
                Era::Legacy => (
                    Unsafe,
                    format!("{title} (unsafe: this crate serves only revisions before 2026-07-28, {reason}, {legacy})"),
                ),
                Era::Unknown => (
                    Unsafe,
                    format!(
                        "{title} (unsafe: nothing tells whether this crate still serves revisions before 2026-07-28, \
                         {legacy}; `era = \"2026-07-28\"` in mcp-lint.toml makes this fix safe)"
                    ),
                ),
            }
        }
    }

    /// Where a crate's sources say which revisions they speak.
    #[derive(Debug, Default, Clone)]
    pub struct Signals {
        /// First place a 2026-07-28 marker appears outside test code: (file, line, the word).
        pub modern: Option<(PathBuf, usize, &'static str)>,
        /// First place an older revision is named outside test code.
        pub legacy: Option<(PathBuf, usize, &'static str)>,
        /// The same two in test code (`test_sources`): tests name old revisions on purpose, so
        /// these count only where nothing else tells.
        pub test_modern: Option<(PathBuf, usize, &'static str)>,
        pub test_legacy: Option<(PathBuf, usize, &'static str)>,
    }

    pub const MODERN_WORDS: &[&str] = &["2026-07-28", "V_2026_07_28", "server/discover"];
    pub const LEGACY_WORDS: &[&str] = &[
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
        "V_2025_11_25",
        "V_2025_06_18",
        "V_2025_03_26",
        "V_2024_11_05",
    ];

    /// Most files read for one crate's era: a bound on the cost for huge crates.
    const MAX_FILES: usize = 5_000;

    /// Where one file names a protocol revision: (line, the word) of the first 2026-07-28 marker
    /// and of the first older revision, outside comments.
    #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
    pub struct FileSignals {
        pub modern: Option<(usize, &'static str)>,
        pub legacy: Option<(usize, &'static str)>,
        /// Whether `modern`, `legacy` are in a test item of the file (`mark_test_items`).
        pub modern_in_test: bool,
        pub legacy_in_test: bool,
    }

    impl FileSignals {
        /// Marks the revisions named in a Rust file's test items (`#[cfg(test)] mod tests`).
        pub fn mark_test_items(&mut self, bytes: &[u8], kind: crate::source::FileKind) {
            if kind != crate::source::FileKind::Rust || (self.modern.is_none() && self.legacy.is_none()) {
                return;
            }
            let items = super::test_sources::test_item_lines(bytes);
            let inside = |hit: Option<(usize, &str)>| {
                hit.is_some_and(|(line, _)| items.iter().any(|(first, last)| (*first..=*last).contains(&line)))
            };
            self.modern_in_test = inside(self.modern);
            self.legacy_in_test = inside(self.legacy);
        }
    }

    /// Finds protocol revisions in the files of a crate the run did not read itself (`scan_crate`);
    /// the run's own files get theirs from the prefilter's scan (`Prefilter::scan_file`).
    pub struct EraScanner {
        automaton: AhoCorasick,
        words: Vec<&'static str>,
    }

    impl Default for EraScanner {
        fn default() -> Self {
            let words: Vec<&'static str> = MODERN_WORDS.iter().chain(LEGACY_WORDS).copied().collect();
            let automaton = AhoCorasick::new(&words).expect("era words build an automaton");
            EraScanner { automaton, words }
        }
    }

    impl EraScanner {
        pub fn file_signals(&self, bytes: &[u8]) -> FileSignals {
            let mut found = FileSignals::default();
            for m in self.automaton.find_iter(bytes) {
                let word = self.words[m.pattern().as_usize()];
                let modern = MODERN_WORDS.contains(&word);
                let slot = if modern { &mut found.modern } else { &mut found.legacy };
                if slot.is_some() {
                    continue;
                }
                if !in_code(bytes, m.start()) {
                    continue;
                }
                *slot = Some((line_at(bytes, m.start()), word));
                if found.modern.is_some() && found.legacy.is_some() {
                    break;
                }
            }
            found
        }
    }

    /// Whether a revision word at `at` is outside comments: a revision named in prose ("written
    /// for MCP 2025-11-25") says nothing of the code.
    pub fn in_code(bytes: &[u8], at: usize) -> bool {
        let line_start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let before = String::from_utf8_lossy(&bytes[line_start..at]);
        !["//", "/*", "*", "#"].iter().any(|c| before.trim_start().starts_with(c))
    }

    /// The line (1-based) of offset `at`.
    pub fn line_at(bytes: &[u8], at: usize) -> usize {
        bytes[..at].iter().filter(|b| **b == b'\n').count() + 1
    }

    impl Signals {
        /// Adds another folder's signals (a sibling crate whose code is the crate's own).
        pub fn merge(&mut self, other: &Signals) {
            for (slot, theirs) in [
                (&mut self.modern, &other.modern),
                (&mut self.legacy, &other.legacy),
                (&mut self.test_modern, &other.test_modern),
                (&mut self.test_legacy, &other.test_legacy),
            ] {
                if let Some(hit) = theirs
                    && slot.as_ref().is_none_or(|(p, _, _)| hit.0 < *p)
                {
                    *slot = Some(hit.clone());
                }
            }
        }

        /// Adds one file's signals (`test_file`: the whole file is test code,
        /// `test_sources::is_test_path`); the first file in path order wins, whatever order files
        /// arrive in, so the reason shown is the same on every run.
        pub fn add(&mut self, path: &Path, file: FileSignals, test_file: bool) {
            fn keep(
                slot: &mut Option<(PathBuf, usize, &'static str)>,
                path: &Path,
                hit: Option<(usize, &'static str)>,
            ) {
                if let Some((line, word)) = hit
                    && slot.as_ref().is_none_or(|(p, _, _)| path < p.as_path())
                {
                    *slot = Some((path.to_path_buf(), line, word));
                }
            }
            let modern = if test_file || file.modern_in_test { &mut self.test_modern } else { &mut self.modern };
            keep(modern, path, file.modern);
            let legacy = if test_file || file.legacy_in_test { &mut self.test_legacy } else { &mut self.legacy };
            keep(legacy, path, file.legacy);
        }
    }

    /// Scans the crate's own sources (not `target/`, not nested crates) for protocol versions:
    /// used when a run did not read the whole crate itself (a single file named, an editor).
    pub fn scan_crate(dir: &Path) -> Signals {
        let scanner = EraScanner::default();
        let mut signals = Signals::default();
        let root = dir.to_path_buf();
        let walker = ignore::WalkBuilder::new(dir)
            .hidden(false)
            .require_git(false)
            .filter_entry(move |e| {
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                let name = e.file_name().to_str().unwrap_or("");
                // Another crate's folder decides its own era.
                !(is_dir
                    && (matches!(name, "target" | ".git" | "node_modules")
                        || (e.path() != root && e.path().join("Cargo.toml").is_file())))
            })
            .build();
        let mut paths: Vec<PathBuf> = walker
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && crate::source::FileKind::is_scanned(e.path()))
            .map(|e| e.into_path())
            .take(MAX_FILES)
            .collect();
        paths.sort();
        for path in paths {
            if signals.modern.is_some() && signals.legacy.is_some() {
                break;
            }
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let mut file = scanner.file_signals(&bytes);
            file.mark_test_items(&bytes, crate::source::FileKind::of(&path));
            signals.add(&path, file, super::test_sources::is_test_path(&path, Some(dir)));
        }
        signals
    }

    /// `path` as seen from `base`: `src/a.rs` inside it, `../lr-mcp/src/a.rs` in a sibling crate.
    fn relative_to(path: &Path, base: &Path) -> PathBuf {
        for (ups, ancestor) in base.ancestors().enumerate() {
            if let Ok(rest) = path.strip_prefix(ancestor) {
                let mut shown: PathBuf = std::iter::repeat_n("..", ups).collect();
                shown.push(rest);
                return shown;
            }
        }
        path.to_path_buf()
    }

    /// Decides the era from the sources' protocol versions first, the SDK's version second.
    /// `siblings`: the signals of the sibling crates whose code is the crate's own (`own_code`),
    /// which tell only where the crate's own sources and its SDK's version do not (a catalog of
    /// dated models in one sibling would otherwise decide every crate's era).
    pub fn decide(cx: &CrateContext, signals: &Signals, siblings: &Signals) -> EraDecision {
        let base = cx.manifest.as_deref().and_then(Path::parent);
        let at = |(path, line, word): &(PathBuf, usize, &str)| {
            let shown = base.map_or_else(|| path.clone(), |b| relative_to(path, b));
            format!("`{word}` at {}:{line}", shown.display())
        };
        let rmcp = cx.sdks.iter().find(|d| d.sdk == Sdk::Rmcp);
        let rmcp_version = cx.sdk_version(Sdk::Rmcp);
        let rmcp_shown = rmcp.map(|d| {
            let through = d.via.as_ref().map(|via| format!(" (through `{via}`)")).unwrap_or_default();
            format!("rmcp {}{through}", d.version.as_deref().unwrap_or("?"))
        });
        // Where the crate's sources and SDK version say nothing, its siblings' sources; then test
        // code, which names old revisions on purpose.
        let tells = |s: &Signals| s.modern.is_some() || s.legacy.is_some();
        let from_siblings = !tells(signals) && rmcp_version.is_none() && tells(siblings);
        let from_tests = !tells(signals) && rmcp_version.is_none() && !tells(siblings);
        let mut tests = Signals {
            test_modern: signals.test_modern.clone(),
            test_legacy: signals.test_legacy.clone(),
            ..Signals::default()
        };
        tests.merge(siblings);
        let (modern, legacy) = if from_siblings {
            (&siblings.modern, &siblings.legacy)
        } else if from_tests {
            (&tests.test_modern, &tests.test_legacy)
        } else {
            (&signals.modern, &signals.legacy)
        };
        let (era, reason) = match (modern, legacy) {
            (Some(m), Some(l)) => {
                (Era::Dual, format!("names 2026-07-28 ({}) and an older revision ({})", at(m), at(l)))
            }
            (Some(m), None) => match rmcp_version {
                // rmcp 3 still answers `initialize` unless told otherwise.
                Some((major, _)) if major >= 3 => (
                    Era::Dual,
                    format!(
                        "names 2026-07-28 ({}); {} also serves legacy clients",
                        at(m),
                        rmcp_shown.unwrap_or_default()
                    ),
                ),
                _ => (Era::Modern, format!("names 2026-07-28 ({}) and no older revision", at(m))),
            },
            (None, Some(l)) => (Era::Legacy, format!("names only revisions before 2026-07-28 ({})", at(l))),
            (None, None) => match rmcp_version {
                Some((major, _)) if major >= 3 => {
                    (Era::Dual, format!("{} serves both 2026-07-28 and legacy clients", rmcp_shown.unwrap_or_default()))
                }
                Some(_) => {
                    (Era::Legacy, format!("{} predates 2026-07-28 (rmcp 3.0 added it)", rmcp_shown.unwrap_or_default()))
                }
                None => (
                    Era::Unknown,
                    "no protocol version or SDK version tells; checked as a migration to 2026-07-28".into(),
                ),
            },
        };
        let reason = if from_tests && era != Era::Unknown {
            format!("{reason}; in test code, as nothing else tells")
        } else {
            reason
        };
        EraDecision { era, reason }
    }
}

/// Reads the manifests one crate's context needs: its own, its workspace root's and those of the
/// path dependencies it reads as its own code, each parsed once.
#[derive(Default)]
struct ManifestReader {
    docs: HashMap<PathBuf, Option<Arc<toml::Table>>>,
    /// Lock file → the SDK versions it locks.
    locks: HashMap<PathBuf, Arc<HashMap<String, String>>>,
    /// Manifests read so far: a path dependency read once (a cycle stops there).
    seen: HashSet<PathBuf>,
}

/// The workspace a crate belongs to: its root folder and manifest.
struct Workspace {
    dir: PathBuf,
    doc: Arc<toml::Table>,
}

impl Workspace {
    fn table(&self, key: &str) -> Option<&toml::Table> {
        self.doc.get("workspace")?.get(key)?.as_table()
    }
}

/// One dependency as a manifest declares it, `workspace = true` resolved.
struct DeclaredDependency {
    /// The package's name (`package = "…"` when renamed).
    name: String,
    /// `"1.3"` or `{ version = "1.3" }`.
    requirement: Option<String>,
    /// The folder of a path dependency.
    path: Option<PathBuf>,
}

impl ManifestReader {
    fn read(&mut self, manifest: &Path) -> CrateContext {
        let mut cx = CrateContext { manifest: Some(manifest.to_path_buf()), ..Default::default() };
        self.seen.insert(manifest.to_path_buf());
        let Some(doc) = self.parse(manifest) else { return cx };
        let dir = manifest.parent().unwrap_or(Path::new(""));
        cx.name = doc.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str()).map(str::to_owned);
        let workspace = self.workspace_of(dir, &doc);
        for dep in declared_dependencies(&doc, dir, workspace.as_ref()) {
            if !cx.dependencies.contains(&dep.name) {
                cx.dependencies.push(dep.name.clone());
            }
            let sdk = Sdk::from_crate_name(&dep.name);
            if let (Some(path), None | Some(Sdk::Other)) = (&dep.path, sdk) {
                // A sibling crate (`lr-mcp`), whatever its name: the SDKs it uses are the crate's.
                if !cx.own_crates.contains(&dep.name) {
                    cx.own_crates.push(dep.name.clone());
                }
                // Canonical, so `../b/../a` is `a`: dev-dependencies may form a cycle.
                let Ok(inner) = std::fs::canonicalize(path.join("Cargo.toml")) else { continue };
                if self.seen.contains(&inner) {
                    continue;
                }
                let sibling = self.read(&inner);
                let dirs = inner.parent().map(Path::to_path_buf).into_iter().chain(sibling.own_code);
                for dir in dirs {
                    if !cx.own_code.contains(&dir) {
                        cx.own_code.push(dir);
                    }
                }
                for found in sibling.sdks {
                    if !cx.sdks.iter().any(|d| d.crate_name == found.crate_name) {
                        let via = found.via.clone().or_else(|| Some(dep.name.clone()));
                        cx.sdks.push(SdkDependency { via, ..found });
                    }
                }
                continue;
            }
            let Some(sdk) = sdk else { continue };
            // Named by the crate itself: that wins over one that came through a sibling.
            if let Some(at) = cx.sdks.iter().position(|d| d.crate_name == dep.name) {
                if cx.sdks[at].via.is_none() {
                    continue;
                }
                cx.sdks.remove(at);
            }
            // The lock file (often the largest TOML of a crate) is read only for a crate with an SDK.
            let locked = self.lock_versions(dir, workspace.as_ref());
            let version = locked.get(&dep.name).cloned().or(dep.requirement).or_else(|| {
                // A path dependency on the SDK's own source (its repository's examples).
                dep.path.and_then(|p| self.package_version(&p.join("Cargo.toml")))
            });
            cx.sdks.push(SdkDependency { sdk, crate_name: dep.name, version, via: None });
        }
        cx
    }

    fn parse(&mut self, manifest: &Path) -> Option<Arc<toml::Table>> {
        self.docs
            .entry(manifest.to_path_buf())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(manifest).ok()?;
                text.parse::<toml::Table>().ok().map(Arc::new)
            })
            .clone()
    }

    /// The workspace the crate in `dir` is a member of: its own `[workspace]`, the root
    /// `package.workspace` names, or the nearest manifest above with a `[workspace]` table that
    /// does not exclude it (cargo's own search).
    fn workspace_of(&mut self, dir: &Path, doc: &Arc<toml::Table>) -> Option<Workspace> {
        if doc.contains_key("workspace") {
            return Some(Workspace { dir: dir.to_path_buf(), doc: doc.clone() });
        }
        if let Some(root) = doc.get("package").and_then(|p| p.get("workspace")).and_then(|w| w.as_str()) {
            let root = dir.join(root);
            let doc = self.parse(&root.join("Cargo.toml"))?;
            return Some(Workspace { dir: root, doc });
        }
        for root in dir.ancestors().skip(1) {
            let manifest = root.join("Cargo.toml");
            if !self.docs.contains_key(&manifest) {
                // Most manifests above a crate are no workspace's: not parsed.
                let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
                if !text.contains("workspace") {
                    continue;
                }
            }
            let Some(doc) = self.parse(&manifest) else { continue };
            let Some(workspace) = doc.get("workspace") else { continue };
            let excluded = workspace
                .get("exclude")
                .and_then(|e| e.as_array())
                .is_some_and(|list| list.iter().filter_map(|e| e.as_str()).any(|e| dir.starts_with(root.join(e))));
            return (!excluded).then(|| Workspace { dir: root.to_path_buf(), doc });
        }
        None
    }

    /// Versions of SDK packages in the `Cargo.lock` cargo uses for the crate in `dir`: its
    /// workspace root's, and none where the root has none (a member's own `Cargo.lock`, left from
    /// before it joined, is stale, and one above the root is another project's: cargo reads
    /// neither); for a crate in no workspace, the nearest at or above `dir`.
    fn lock_versions(&mut self, dir: &Path, workspace: Option<&Workspace>) -> Arc<HashMap<String, String>> {
        let lock = match workspace {
            Some(w) => Some(w.dir.join("Cargo.lock")).filter(|lock| lock.is_file()),
            None => dir.ancestors().map(|d| d.join("Cargo.lock")).find(|p| p.is_file()),
        };
        let Some(lock) = lock else { return Arc::default() };
        self.locks
            .entry(lock)
            .or_insert_with_key(|lock| {
                Arc::new(std::fs::read_to_string(lock).map(|text| sdk_versions_in_lock(&text)).unwrap_or_default())
            })
            .clone()
    }

    /// `package.version` of a manifest, `version.workspace = true` read from its workspace.
    fn package_version(&mut self, manifest: &Path) -> Option<String> {
        let doc = self.parse(manifest)?;
        let version = doc.get("package")?.get("version")?;
        if let Some(v) = version.as_str() {
            return Some(v.to_owned());
        }
        let workspace = self.workspace_of(manifest.parent()?, &doc)?;
        workspace.table("package")?.get("version")?.as_str().map(str::to_owned)
    }
}

/// Every dependency a manifest declares: normal, dev and build, also under
/// `[target.'cfg(..)'.…]`, and a workspace root's `[workspace.dependencies]`; `workspace = true`
/// read from the workspace's entry (its version, rename and path, relative to the root).
fn declared_dependencies(doc: &toml::Table, dir: &Path, workspace: Option<&Workspace>) -> Vec<DeclaredDependency> {
    const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<&toml::Table> = KINDS.iter().filter_map(|k| doc.get(*k)?.as_table()).collect();
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table()) {
        for target in targets.values() {
            tables.extend(KINDS.iter().filter_map(|k| target.get(*k)?.as_table()));
        }
    }
    let own_workspace = doc.get("workspace").and_then(|w| w.get("dependencies")).and_then(|d| d.as_table());
    let inherited = workspace.and_then(|w| Some((w.table("dependencies")?, w.dir.as_path())));
    let entries = tables.into_iter().flat_map(|t| t.iter().map(|(k, v)| (k, v, dir)));
    let entries = entries.chain(own_workspace.into_iter().flat_map(|t| t.iter().map(|(k, v)| (k, v, dir))));
    entries
        .map(|(key, value, base)| {
            let (value, base) = match inherited {
                Some((table, root)) if value.get("workspace").and_then(|w| w.as_bool()) == Some(true) => {
                    table.get(key).map_or((value, base), |v| (v, root))
                }
                _ => (value, base),
            };
            DeclaredDependency {
                // `foo = { package = "rmcp", … }` renames a dependency.
                name: value.get("package").and_then(|p| p.as_str()).unwrap_or(key).to_owned(),
                requirement: match value {
                    toml::Value::String(v) => Some(v.clone()),
                    other => other.get("version").and_then(|v| v.as_str()).map(str::to_owned),
                },
                path: value.get("path").and_then(|p| p.as_str()).map(|p| base.join(p)),
            }
        })
        .collect()
}

/// The locked versions of SDK crates. Cargo writes each package as `[[package]]` then
/// `name = "…"` and `version = "…"` lines; read as lines (a TOML parse of a large lock file cost
/// more than the crate's analysis), and only those after a `name` line that says `mcp`, which
/// every SDK's name does (a lock file is read once per crate, and most of its lines are other
/// crates').
fn sdk_versions_in_lock(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut next_line = 0;
    for hit in memchr::memmem::find_iter(text.as_bytes(), "mcp") {
        if hit < next_line {
            continue;
        }
        let line_start = text[..hit].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[hit..].find('\n').map_or(text.len(), |i| hit + i);
        next_line = line_end;
        let Some(name) = lock_value(text[line_start..line_end].trim(), "name") else { continue };
        if Sdk::from_crate_name(name).is_none() {
            continue;
        }
        // The package's version is the first `version` line before the next table or name.
        for line in text[line_end..].lines().skip(1).map(str::trim) {
            if line.starts_with('[') || lock_value(line, "name").is_some() {
                break;
            }
            if let Some(version) = lock_value(line, "version") {
                out.entry(name.to_owned()).or_insert_with(|| version.to_owned());
                break;
            }
        }
    }
    out
}

/// The string value of `key = "…"` on a trimmed line of a lock file.
fn lock_value<'t>(line: &'t str, key: &str) -> Option<&'t str> {
    let rest = line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
    rest.strip_prefix('"')?.strip_suffix('"')
}

/// Finds and remembers the crate of each folder, so each manifest is read once per run.
#[derive(Default)]
pub struct CrateContexts {
    by_dir: Mutex<HashMap<PathBuf, Arc<CrateContext>>>,
    /// Era signals of crates whose every file the run read already (keyed by the manifest's
    /// folder): their era needs no second read of the crate.
    seeds: Mutex<HashMap<PathBuf, era::Signals>>,
    canonical: crate::discover::CanonicalDirs,
    /// Canonical folder → the folder of the nearest manifest at or above it.
    crate_dirs: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// Crate (as `crate_and_module` keys it) → the model rules its files' own words select: a file
    /// with only a rule's crate words counts for that rule where its crate is here.
    model_selections: Mutex<HashMap<PathBuf, HashSet<&'static str>>>,
    /// Crates (keyed as `model_selections`) with a file that has roots words.
    roots_words: Mutex<HashSet<PathBuf>>,
}

impl CrateContexts {
    /// Records that a file's own words select these model rules (by name), for its crate.
    pub fn select_model_rules(&self, file: &Path, rules: impl IntoIterator<Item = &'static str>) {
        let mut rules = rules.into_iter().peekable();
        if rules.peek().is_none() {
            return;
        }
        let key = self.crate_and_module(file).0;
        self.model_selections.lock().unwrap().entry(key).or_default().extend(rules);
    }

    /// Records that `file` has roots words (`model::roots::ROOTS_WORDS`), for its crate.
    pub fn note_roots_words(&self, file: &Path) {
        let key = self.crate_and_module(file).0;
        self.roots_words.lock().unwrap().insert(key);
    }

    /// Whether some file of `file`'s crate has roots words (`note_roots_words`).
    pub fn has_roots_words(&self, file: &Path) -> bool {
        let key = self.crate_and_module(file).0;
        self.roots_words.lock().unwrap().contains(&key)
    }

    /// Whether some file of `file`'s crate selects the model rule `name` by its own words
    /// (`select_model_rules`).
    pub fn crate_selects(&self, file: &Path, name: &str) -> bool {
        let key = self.crate_and_module(file).0;
        self.model_selections.lock().unwrap().get(&key).is_some_and(|rules| rules.contains(name))
    }

    /// The folder of the manifest nearest above `file` (canonical), if any.
    pub fn crate_dir(&self, file: &Path) -> Option<PathBuf> {
        self.crate_dir_of(&self.canonical.of_file(file))
    }

    /// Memoised per folder, so sibling folders share the walk up (a `stat` per folder, once).
    fn crate_dir_of(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(found) = self.crate_dirs.lock().unwrap().get(dir) {
            return found.clone();
        }
        let found = if dir.join("Cargo.toml").is_file() {
            Some(dir.to_path_buf())
        } else {
            dir.parent().and_then(|parent| self.crate_dir_of(parent))
        };
        self.crate_dirs.lock().unwrap().insert(dir.to_path_buf(), found.clone());
        found
    }

    /// The crate a file belongs to, for the crate model: the folder of its manifest (the file's own
    /// path when it is in no crate), and its module there (`model::module_of`).
    pub fn crate_and_module(&self, file: &Path) -> (PathBuf, Vec<String>) {
        let dir = self.canonical.of_file(file);
        let name = file.file_name().map(PathBuf::from).unwrap_or_default();
        match self.crate_dir_of(&dir) {
            Some(krate) => {
                let relative = dir.strip_prefix(&krate).unwrap_or(Path::new("")).join(&name);
                let module = crate::model::module_of(&relative);
                (krate, module)
            }
            None => (dir.join(&name), Vec::new()),
        }
    }

    /// Gives a crate the era signals the run collected from all of its files.
    pub fn seed(&self, crate_dir: PathBuf, signals: era::Signals) {
        self.seeds.lock().unwrap().insert(crate_dir, signals);
    }

    /// The era signals of the crate in `dir`: those the run collected, else a scan of its folder,
    /// remembered (a sibling crate may be the own code of many).
    fn signals_of(&self, dir: &Path) -> era::Signals {
        if let Some(seed) = self.seeds.lock().unwrap().get(dir) {
            return seed.clone();
        }
        let scanned = era::scan_crate(dir);
        self.seeds.lock().unwrap().insert(dir.to_path_buf(), scanned.clone());
        scanned
    }

    pub fn for_file(&self, file: &Path) -> Arc<CrateContext> {
        let dir = self.canonical.of_file(file);
        if let Some(cx) = self.by_dir.lock().unwrap().get(&dir) {
            return cx.clone();
        }
        let cx = match self.crate_dir_of(&dir) {
            Some(key) => {
                let manifest = key.join("Cargo.toml");
                let cached = self.by_dir.lock().unwrap().get(&key).cloned();
                cached.unwrap_or_else(|| {
                    let cx = Arc::new(CrateContext::from_manifest_with(&manifest, &|dir| self.signals_of(dir)));
                    self.by_dir.lock().unwrap().insert(key, cx.clone());
                    cx
                })
            }
            None => Arc::new(CrateContext::outside_any_crate()),
        };
        self.by_dir.lock().unwrap().insert(dir, cx.clone());
        cx
    }
}

/// Which side of the protocol a piece of code is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    Server,
    Client,
    #[default]
    Unknown,
}

/// Words whose presence in a file says which side it is on. They ride in the prefilter's one pass
/// over the bytes, so a file's role costs nothing extra.
pub const SERVER_WORDS: &[&str] =
    &["ServerHandler", "RoleServer", "tool_router", "tool_handler", "McpServer", "ServerRuntime"];
pub const CLIENT_WORDS: &[&str] = &["ClientHandler", "RoleClient", "McpClient", "ClientRuntime"];

/// Words that make a file MCP code (`removed-method`'s evidence for `initialize` and `ping`): MCP-only
/// method prefixes and names (LSP has `initialize`, `initialized`, `$/…` and `textDocument/…`, none of these).
pub const MCP_EVIDENCE: &[&str] = &[
    "tools/",
    "resources/",
    "prompts/",
    "notifications/",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "server/discover",
    "modelcontextprotocol",
    "protocolVersion",
    "inputRequests",
    "resultType",
    "ServerHandler",
    "ClientHandler",
    // The Streamable HTTP session header (2025-03-26 to 2025-11-25), which no other protocol has.
    "Mcp-Session-Id",
    "mcp-session-id",
    "MCP-Session-Id",
];

/// The crate depends on an MCP SDK, the file is a server's or a client's, or its text names MCP.
pub fn is_mcp_code(text: &str, crate_ctx: &CrateContext, file_role: Role) -> bool {
    !crate_ctx.sdks.is_empty() || file_role != Role::Unknown || MCP_EVIDENCE.iter().any(|w| text.contains(w))
}

/// What else makes a Rust file MCP code for `RuleMeta::mcp_triggers`, beside the role words,
/// `MCP_EVIDENCE` and its crate's SDK dependencies: an SDK imported by the file (every SDK's crate
/// name has `mcp`), and the attributes that make code a server's (`#[tool]`, `#[prompt]`,
/// `#[prompt_router]`), which the visitor takes as a server role.
pub const MCP_CODE_WORDS: &[&str] = &["mcp", "\\btool", "\\bprompt"];

/// A file's role from the role words that stand outside `skip` (its test code).
pub fn role_outside(text: &str, skip: &[std::ops::Range<usize>]) -> Role {
    let outside = |words: &[&str]| {
        words.iter().any(|w| text.match_indices(w).any(|(at, _)| !skip.iter().any(|r| r.contains(&at))))
    };
    Role::from_words(outside(SERVER_WORDS), outside(CLIENT_WORDS))
}

impl Role {
    /// A file's role from which role words it contains: one side only, or unknown.
    pub fn from_words(server: bool, client: bool) -> Role {
        match (server, client) {
            (true, false) => Role::Server,
            (false, true) => Role::Client,
            _ => Role::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line-by-line reading `sdk_versions_in_lock` stands for: every line, with the last
    /// `name` since the last table.
    fn sdk_versions_line_by_line(text: &str) -> HashMap<String, String> {
        let mut out = HashMap::new();
        let mut name: Option<&str> = None;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                name = None;
            } else if let Some(n) = lock_value(line, "name") {
                name = Some(n);
            } else if let (Some(n), Some(version)) = (name, lock_value(line, "version"))
                && Sdk::from_crate_name(n).is_some()
            {
                out.entry(n.to_owned()).or_insert_with(|| version.to_owned());
            }
        }
        out
    }

    #[test]
    fn lock_versions_are_those_of_reading_every_line() {
        let texts = [
            include_str!("../Cargo.lock"),
            "version = 4\r\n[[package]]\r\nname = \"rmcp\"\r\nversion = \"3.1.4\"\r\n[[package]]\r\nname = \"rmcp\"\r\nversion = \"0.9.0\"\r\n",
            "[[package]]\n  name=\"mcp-core\"\n\n  source = \"x\"\n version =  \"0.1.5\" \n[[package]]\nname = \"rmcp-macros\"\n[[package]]\nversion = \"9\"\n",
            "[[package]]\nname = \"rust-mcp-sdk\"\nname = \"serde\"\nversion = \"1\"\n[[package]]\nversion = \"2\"\nname = \"pmcp\"\n",
            "[[package]]\nname = \"turbomcp\"\nversion = \"2.0\"", // no final newline
            "[[package]]\nname = \"fastmcp\" # mcp\nversion = \"1\"\ndependencies = [\"mcp-x\", \"rmcp\"]\n",
        ];
        for text in texts {
            assert_eq!(sdk_versions_in_lock(text), sdk_versions_line_by_line(text), "{text}");
        }
        assert_eq!(sdk_versions_in_lock(texts[1]).get("rmcp").map(String::as_str), Some("3.1.4"));
        assert_eq!(sdk_versions_in_lock(texts[2]).get("mcp-core").map(String::as_str), Some("0.1.5"));
    }

    #[test]
    fn reads_sdk_and_locked_version() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"srv\"\nversion = \"0.1.0\"\n[dependencies]\nrmcp = { version = \"3\", features = [\"server\"] }\nserde = \"1\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("Cargo.lock"),
            "version = 4\n[[package]]\nname = \"rmcp\"\nversion = \"3.1.4\"\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let contexts = CrateContexts::default();
        let cx = contexts.for_file(&dir.path().join("src/main.rs"));
        assert_eq!(cx.name.as_deref(), Some("srv"));
        assert_eq!(
            cx.sdks,
            vec![SdkDependency { sdk: Sdk::Rmcp, crate_name: "rmcp".into(), version: Some("3.1.4".into()), via: None }]
        );
        assert!(cx.uses(Sdk::Rmcp));
    }

    /// A workspace member's own `Cargo.lock`, left from before it joined, is not the one cargo
    /// uses: the workspace root's is.
    #[test]
    fn a_member_reads_its_workspace_s_lock_not_a_stale_one_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let lock = |v: &str| format!("version = 4\n[[package]]\nname = \"rmcp\"\nversion = \"{v}\"\n");
        std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\nmembers = [\"srv\"]\nexclude = [\"old\"]\n")
            .unwrap();
        std::fs::write(dir.path().join("Cargo.lock"), lock("3.2.0")).unwrap();
        for member in ["srv", "old"] {
            std::fs::create_dir_all(dir.path().join(member).join("src")).unwrap();
            std::fs::write(
                dir.path().join(member).join("Cargo.toml"),
                "[package]\nname = \"m\"\nversion = \"0.1.0\"\n[dependencies]\nrmcp = \"0.8\"\n",
            )
            .unwrap();
            std::fs::write(dir.path().join(member).join("Cargo.lock"), lock("0.8.5")).unwrap();
        }
        let contexts = CrateContexts::default();
        let version =
            |member: &str| contexts.for_file(&dir.path().join(member).join("src/main.rs")).sdks[0].version.clone();
        assert_eq!(version("srv").as_deref(), Some("3.2.0"));
        // Excluded from the workspace: a crate of its own, with its own lock.
        assert_eq!(version("old").as_deref(), Some("0.8.5"));
    }

    /// Writes `files` (path, text) under `dir`.
    fn write_tree(dir: &Path, files: &[(&str, &str)]) {
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    const WORKSPACE_ROOT: &str = "[workspace]\nmembers = [\"crates/*\"]\n\
        [workspace.package]\nversion = \"0.4.0\"\n\
        [workspace.dependencies]\n\
        rmcp = { version = \"1.3.0\", default-features = false }\n\
        sdk = { package = \"rust-mcp-sdk\", version = \"0.7\" }\n\
        serde = \"1\"\n\
        lr-mcp = { path = \"crates/lr-mcp\" }\n";

    /// The layout of most real servers: the SDK's version in the root's
    /// `[workspace.dependencies]`, members saying `workspace = true`, no lock file.
    #[test]
    fn workspace_members_read_versions_from_the_root() {
        let d = tempfile::tempdir().unwrap();
        write_tree(
            d.path(),
            &[
                ("Cargo.toml", WORKSPACE_ROOT),
                (
                    "crates/lr-mcp/Cargo.toml",
                    "[package]\nname = \"lr-mcp\"\nversion.workspace = true\n\
                     [target.'cfg(unix)'.dependencies]\nrmcp = { workspace = true, features = [\"server\"] }\n\
                     [dev-dependencies]\nsdk = { workspace = true }\n",
                ),
                (
                    "crates/lr-server/Cargo.toml",
                    "[package]\nname = \"lr-server\"\n[dependencies]\nlr-mcp.workspace = true\nserde.workspace = true\n",
                ),
                ("crates/lr-server/src/main.rs", "fn main() {}\n"),
            ],
        );
        let contexts = CrateContexts::default();
        let mcp = contexts.for_file(&d.path().join("crates/lr-mcp/src/lib.rs"));
        let shown = |cx: &CrateContext| -> Vec<String> {
            cx.sdks.iter().map(|s| format!("{} {:?} via {:?}", s.crate_name, s.version, s.via)).collect()
        };
        assert_eq!(shown(&mcp), ["rust-mcp-sdk Some(\"0.7\") via None", "rmcp Some(\"1.3.0\") via None"]);
        assert_eq!(mcp.era.era, Era::Legacy, "{}", mcp.era.reason);
        assert!(mcp.era.reason.contains("rmcp 1.3.0"), "{}", mcp.era.reason);

        // A sibling is the project's own code, whatever its name: its SDKs are the crate's.
        let server = contexts.for_file(&d.path().join("crates/lr-server/src/main.rs"));
        assert_eq!(
            shown(&server),
            ["rust-mcp-sdk Some(\"0.7\") via Some(\"lr-mcp\")", "rmcp Some(\"1.3.0\") via Some(\"lr-mcp\")"]
        );
        assert_eq!(server.own_crates, ["lr-mcp"]);
        assert_eq!(server.era.era, Era::Legacy, "{}", server.era.reason);

        // The root names every workspace dependency, its sibling crates no SDK.
        let root = contexts.for_file(&d.path().join("build.rs"));
        assert_eq!(root.sdks.iter().map(|s| s.crate_name.as_str()).collect::<Vec<_>>(), ["rmcp", "rust-mcp-sdk"]);
        assert_eq!(root.own_crates, ["lr-mcp"]);

        // With the lock file, its versions.
        std::fs::write(
            d.path().join("Cargo.lock"),
            "version = 4\n[[package]]\nname = \"rmcp\"\nversion = \"1.3.2\"\n[[package]]\nname = \"lr-mcp\"\nversion = \"0.4.0\"\n",
        )
        .unwrap();
        let contexts = CrateContexts::default();
        let server = contexts.for_file(&d.path().join("crates/lr-server/src/main.rs"));
        assert_eq!(server.sdk_version(Sdk::Rmcp), Some((1, 3)));
        assert_eq!(server.sdks[1].version.as_deref(), Some("1.3.2"));
    }

    /// A sibling crate's code is the crate's own: where the crate's sources and SDK say nothing,
    /// the revisions it names tell the crate's era, and the era note shows where they are.
    #[test]
    fn revisions_named_by_a_sibling_crate_tell_where_the_crate_says_nothing() {
        let d = tempfile::tempdir().unwrap();
        write_tree(
            d.path(),
            &[
                ("Cargo.toml", "[workspace]\nmembers = [\"app\", \"proto\", \"proto-types\"]\n"),
                ("app/Cargo.toml", "[package]\nname = \"app\"\n[dependencies]\nproto = { path = \"../proto\" }\n"),
                ("app/src/main.rs", "fn main() {}\n"),
                (
                    "proto/Cargo.toml",
                    "[package]\nname = \"proto\"\n[dependencies]\nproto-types = { path = \"../proto-types\" }\n",
                ),
                ("proto/src/lib.rs", "pub fn f() {}\n"),
                ("proto-types/Cargo.toml", "[package]\nname = \"proto-types\"\n"),
                ("proto-types/src/lib.rs", "pub const LATEST: &str = \"2026-07-28\";\n"),
            ],
        );
        let cx = CrateContexts::default().for_file(&d.path().join("app/src/main.rs"));
        assert_eq!(cx.era.era, Era::Modern, "{}", cx.era.reason);
        assert!(cx.era.reason.contains("../proto-types/src/lib.rs:1"), "{}", cx.era.reason);
        assert_eq!(cx.own_crates, ["proto"]);
        assert_eq!(cx.own_code.len(), 2);

        // Its own sources tell: the siblings' say nothing.
        std::fs::write(d.path().join("app/src/main.rs"), "fn main() { let v = \"2024-11-05\"; }\n").unwrap();
        let cx = CrateContexts::default().for_file(&d.path().join("app/src/main.rs"));
        assert_eq!(cx.era.era, Era::Legacy, "{}", cx.era.reason);
        assert!(!cx.era.reason.contains("proto-types"), "{}", cx.era.reason);
    }

    /// Dev-dependencies may form a cycle of path dependencies (`a` → `b` → `a`, a crate on itself
    /// with test features): each manifest is read once.
    #[test]
    fn a_cycle_of_path_dependencies_ends() {
        let d = tempfile::tempdir().unwrap();
        write_tree(
            d.path(),
            &[
                ("Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\"]\n"),
                (
                    "a/Cargo.toml",
                    "[package]\nname = \"a\"\n[dependencies]\nrmcp = \"1.4\"\nb = { path = \"../b\" }\n\
                     [dev-dependencies]\na = { path = \".\", features = [\"testing\"] }\n",
                ),
                ("b/Cargo.toml", "[package]\nname = \"b\"\n[dev-dependencies]\na = { path = \"../a\" }\n"),
            ],
        );
        let cx = CrateContexts::default().for_file(&d.path().join("b/src/lib.rs"));
        assert_eq!(cx.sdks.len(), 1);
        assert_eq!(cx.sdks[0].via.as_deref(), Some("a"));
    }

    /// A path dependency on an SDK's own source (its repository's examples) is that SDK, at the
    /// version its manifest says.
    #[test]
    fn a_path_dependency_on_the_sdk_is_the_sdk() {
        let d = tempfile::tempdir().unwrap();
        write_tree(
            d.path(),
            &[
                (
                    "Cargo.toml",
                    "[workspace]\nmembers = [\"crates/rmcp\", \"examples/srv\"]\n[workspace.package]\nversion = \"3.2.0\"\n",
                ),
                ("crates/rmcp/Cargo.toml", "[package]\nname = \"rmcp\"\nversion = { workspace = true }\n"),
                (
                    "examples/srv/Cargo.toml",
                    "[package]\nname = \"srv\"\n[dependencies]\nrmcp = { path = \"../../crates/rmcp\" }\n",
                ),
            ],
        );
        let cx = CrateContexts::default().for_file(&d.path().join("examples/srv/src/main.rs"));
        assert_eq!(cx.sdks.len(), 1);
        assert_eq!(cx.sdks[0].version.as_deref(), Some("3.2.0"));
        assert!(cx.own_crates.is_empty());
    }

    /// Tests name old revisions on purpose: they tell the era only where nothing else does, and
    /// the reason says so.
    #[test]
    fn revisions_in_test_code_count_only_where_nothing_else_tells() {
        let test_only: &[(&str, &str)] = &[
            ("src/lib.rs", "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    const OLD: &str = \"2025-06-18\";\n}\n"),
            ("tests/it.rs", "const NEW: &str = \"2026-07-28\";\n"),
        ];
        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(d.path(), None, test_only);
        assert_eq!(cx.era.era, Era::Dual, "{}", cx.era.reason);
        assert!(cx.era.reason.ends_with("in test code, as nothing else tells"), "{}", cx.era.reason);

        // The SDK's version tells: the tests say nothing.
        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(d.path(), Some("1.3"), test_only);
        assert_eq!(cx.era.era, Era::Legacy, "{}", cx.era.reason);
        assert!(!cx.era.reason.contains("test"), "{}", cx.era.reason);

        // So do the sources.
        let d = tempfile::tempdir().unwrap();
        let mut files = test_only.to_vec();
        files.push(("src/version.rs", "pub const V: &str = \"2026-07-28\";\n"));
        let cx = crate_with(d.path(), None, &files);
        assert_eq!(cx.era.era, Era::Modern, "{}", cx.era.reason);
        assert!(cx.era.reason.contains("src/version.rs:1"), "{}", cx.era.reason);
    }

    #[test]
    fn sdk_names() {
        assert_eq!(Sdk::from_crate_name("rust-mcp-sdk"), Some(Sdk::RustMcpSdk));
        assert_eq!(Sdk::from_use_root("rust_mcp_sdk"), Some(Sdk::RustMcpSdk));
        assert_eq!(Sdk::from_crate_name("turbomcp-server"), Some(Sdk::Turbomcp));
        assert_eq!(Sdk::from_crate_name("serde"), None);
        assert_eq!(Sdk::from_crate_name("memchr"), None);
    }

    fn crate_with(dir: &Path, rmcp: Option<&str>, files: &[(&str, &str)]) -> CrateContext {
        let deps = rmcp.map(|v| format!("rmcp = \"{v}\"\n")).unwrap_or_default();
        std::fs::write(dir.join("Cargo.toml"), format!("[package]\nname = \"c\"\n[dependencies]\n{deps}")).unwrap();
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        CrateContext::from_manifest(&dir.join("Cargo.toml"))
    }

    #[test]
    fn era_from_sources_and_sdk() {
        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(d.path(), Some("3.1"), &[("src/a.rs", "const V: &str = \"2026-07-28\";\n")]);
        assert_eq!(cx.era.era, Era::Dual, "{}", cx.era.reason);
        assert!(cx.era.reason.contains("src/a.rs:1"), "{}", cx.era.reason);
        assert_eq!(cx.severity_for(Impact::Removed), Severity::Warning);
        assert_eq!(cx.severity_for(Impact::Violation), Severity::Error);

        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(d.path(), None, &[("src/a.rs", "let v = ProtocolVersion::V_2026_07_28;\n")]);
        assert_eq!(cx.era.era, Era::Modern, "{}", cx.era.reason);
        assert_eq!(cx.severity_for(Impact::Removed), Severity::Error);

        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(d.path(), Some("2.2"), &[("src/a.rs", "// written for 2026-07-28 later\nfn f() {}\n")]);
        assert_eq!(cx.era.era, Era::Legacy, "a comment is no evidence: {}", cx.era.reason);

        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(
            d.path(),
            None,
            &[("src/a.rs", "const NEW: &str = \"2026-07-28\";\n"), ("src/b.rs", "const OLD: &str = \"2025-06-18\";\n")],
        );
        assert_eq!(cx.era.era, Era::Dual);

        let d = tempfile::tempdir().unwrap();
        let cx = crate_with(d.path(), None, &[("src/a.rs", "fn f() {}\n")]);
        assert_eq!(cx.era.era, Era::Unknown);
        assert_eq!(cx.severity_for(Impact::Removed), Severity::Error);
        assert_eq!(cx.severity_for(Impact::Deprecated { earliest_removal: "2027-07-28" }), Severity::Warning);
    }

    #[test]
    fn nested_crates_decide_their_own_era() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("inner/src")).unwrap();
        std::fs::write(d.path().join("inner/Cargo.toml"), "[package]\nname = \"inner\"\n").unwrap();
        std::fs::write(d.path().join("inner/src/lib.rs"), "const V: &str = \"2026-07-28\";\n").unwrap();
        let cx = crate_with(d.path(), None, &[("src/a.rs", "fn f() {}\n")]);
        assert_eq!(cx.era.era, Era::Unknown, "{}", cx.era.reason);
    }
}
