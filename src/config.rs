//! Configuration files: `mcp-lint.toml` or `.mcp-lint.toml`, or `[package.metadata.mcp-lint]` /
//! `[workspace.metadata.mcp-lint]` in `Cargo.toml`, found upward from each checked file. The nearest
//! one wins, whole (no merging, so what applies to a file is one file away). Command-line flags
//! override files.
//!
//! Keys: `select`, `ignore` (rule lists), `exclude` (globs), `era`, `roots-to` (the roots codemod's
//! migration, `"param"` or `"config"`; `fix --roots-to` overrides it), `[severity]` (per rule:
//! `"error"`, `"warning"` or `"off"`), `tests` (the same levels for every finding in test code),
//! `[per-path-ignores]` (glob → rules). An unknown key, rule,
//! severity, era or a bad glob is an error that names the file, line and column (exit code 2),
//! reported once per file.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::context::Era;
use crate::diagnostic::Severity;
use crate::rules::{self, Rule};
use crate::source::{LineCol, LineIndex};

/// Names of the dedicated configuration file; two of them in one folder is an error.
pub const FILE_NAMES: [&str; 2] = ["mcp-lint.toml", ".mcp-lint.toml"];

/// One configuration table as written, with spans for error messages.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    select: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<Level>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default)]
    per_path_ignores: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    era: Option<Spanned<String>>,
    roots_to: Option<Spanned<String>>,
    tests: Option<Spanned<Level>>,
}

/// Which migration the roots codemod gives every roots use of a run (`fix --roots-to`, `roots-to`
/// in the configuration), instead of the one the crate model's classification calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsTo {
    /// A documented tool parameter. Refused where the roots are an allow-list: it would let any
    /// client choose any directory.
    Param,
    /// Server configuration: the list the server seeds from its command line, environment or
    /// configuration stays, the client's refresh goes.
    Config,
    /// The 2026-07-28 round trip (rmcp >= 3.1.1): a tool's roots request becomes an
    /// `input_required` result asking for `roots/list`, answered in the retry's `inputResponses`.
    Mrtr,
}

impl RootsTo {
    pub fn parse(s: &str) -> Option<RootsTo> {
        match s {
            "param" => Some(RootsTo::Param),
            "config" => Some(RootsTo::Config),
            "mrtr" => Some(RootsTo::Mrtr),
            _ => None,
        }
    }
}

/// The parts of `Cargo.toml` we read; everything else in it is cargo's business.
#[derive(Deserialize)]
struct Manifest {
    package: Option<ManifestSection>,
    workspace: Option<ManifestSection>,
}

#[derive(Deserialize)]
struct ManifestSection {
    metadata: Option<ManifestMetadata>,
}

#[derive(Deserialize)]
struct ManifestMetadata {
    #[serde(rename = "mcp-lint")]
    mcp_lint: Option<RawConfig>,
}

/// A rule's severity as configured; `off` disables it like `ignore`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Off,
}

/// A glob and the rules it turns off for the files it matches.
#[derive(Debug)]
pub struct PathIgnore {
    pub pattern: String,
    matcher: GlobSet,
    pub rules: Vec<&'static str>,
}

/// One configuration, validated.
#[derive(Debug)]
pub struct Config {
    /// The file it was read from (`mcp-lint.toml`, `.mcp-lint.toml` or `Cargo.toml`).
    pub path: PathBuf,
    /// The folder that `exclude` and `per-path-ignores` globs are relative to: the file's.
    pub dir: PathBuf,
    pub select: Option<Vec<&'static str>>,
    pub ignore: Vec<&'static str>,
    pub severity: Vec<(&'static str, Level)>,
    pub exclude: Vec<String>,
    exclude_set: GlobSet,
    pub per_path_ignores: Vec<PathIgnore>,
    /// The protocol era the code targets, when the configuration says (context decides otherwise).
    pub era: Option<Era>,
    /// `roots-to`: the roots codemod's migration, when the configuration forces one.
    pub roots_to: Option<RootsTo>,
    /// `tests`: the level of every finding in test code, over `[severity]`; `None` keeps each
    /// finding's own.
    pub tests: Option<Level>,
}

/// A configuration file that cannot be used: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConfigError {
    pub path: PathBuf,
    pub at: Option<LineCol>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = shown_path(&self.path);
        match self.at {
            Some(at) => write!(f, "{shown}:{}:{}: {}", at.line, at.column, self.message),
            None => write!(f, "{shown}: {}", self.message),
        }
    }
}

/// A path relative to the current folder when it is below it, else as is.
pub fn shown_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok().and_then(|d| std::fs::canonicalize(d).ok());
    let rel = cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()).unwrap_or(path);
    crate::discover::display_path(rel)
}

/// Names a configuration may use: every rule, and `unused-suppression`. (`parse-error` cannot be
/// turned off: a syntax error always shows, as the item it is in goes unchecked.)
pub fn configurable_rule(name: &str) -> Option<&'static str> {
    rules::ALL.iter().map(|r| r.meta().name).chain([rules::UNUSED_SUPPRESSION.name]).find(|n| *n == name)
}

/// "unknown rule `x`" with what was probably meant, else where to find the names; `place` says
/// where it was written (` in `ignore``), or is empty.
pub fn unknown_rule(name: &str, place: &str) -> String {
    let hint = crate::words::hint(name, configurable_rules(), "; `mcp-lint rules` lists them");
    format!("unknown rule `{name}`{place}{hint}")
}

/// The keys a configuration table may have (`RawConfig`'s), for "did you mean".
const KEYS: &[&str] = &["select", "ignore", "severity", "exclude", "per-path-ignores", "era", "roots-to", "tests"];

/// The rules `--select` and `--ignore` leave (every rule when neither is given); an unknown name is an error.
pub fn selected_rules(select: &[String], ignore: &[String]) -> Result<Vec<&'static dyn Rule>, String> {
    for name in select.iter().chain(ignore) {
        if configurable_rule(name).is_none() {
            return Err(unknown_rule(name, ""));
        }
    }
    Ok(rules::ALL
        .iter()
        .copied()
        .filter(|r| select.is_empty() || select.iter().any(|s| s == r.meta().name))
        .filter(|r| !ignore.iter().any(|s| s == r.meta().name))
        .collect())
}

fn configurable_rules() -> impl Iterator<Item = &'static str> {
    rules::ALL.iter().map(|r| r.meta().name).chain([rules::UNUSED_SUPPRESSION.name])
}

impl Config {
    /// Reads a dedicated configuration file (`mcp-lint.toml`); a `Cargo.toml` is read for its
    /// `[package.metadata.mcp-lint]` table, else its `[workspace.metadata.mcp-lint]` table.
    pub fn load(path: &Path) -> Result<Option<Config>, ConfigError> {
        if path.file_name().is_some_and(|n| n == "Cargo.toml") {
            let (package, workspace) = Config::load_manifest(path)?;
            return Ok(package.or(workspace));
        }
        let text = read(path)?;
        let raw: RawConfig = toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
        Config::validate(path, &text, raw).map(Some)
    }

    /// A manifest's `[package.metadata.mcp-lint]` and `[workspace.metadata.mcp-lint]` tables.
    fn load_manifest(path: &Path) -> Result<(Option<Config>, Option<Config>), ConfigError> {
        let text = read(path)?;
        // Most manifests say nothing to mcp-lint: do not parse (or judge) them.
        if !text.contains("mcp-lint") {
            return Ok((None, None));
        }
        let manifest: Manifest = toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
        let table = |s: Option<ManifestSection>| s.and_then(|s| s.metadata).and_then(|m| m.mcp_lint);
        let package = table(manifest.package).map(|raw| Config::validate(path, &text, raw)).transpose()?;
        let workspace = table(manifest.workspace).map(|raw| Config::validate(path, &text, raw)).transpose()?;
        Ok((package, workspace))
    }

    fn validate(path: &Path, text: &str, raw: RawConfig) -> Result<Config, ConfigError> {
        let err = |span: Range<usize>, message: String| ConfigError {
            path: path.to_path_buf(),
            at: Some(LineIndex::new(text).line_col(text, span.start)),
            message,
        };
        let rule = |name: &Spanned<String>, key: &str| {
            configurable_rule(name.get_ref())
                .ok_or_else(|| err(name.span(), unknown_rule(name.get_ref(), &format!(" in `{key}`"))))
        };
        let rule_list = |names: &[Spanned<String>], key: &str| names.iter().map(|n| rule(n, key)).collect();
        let select: Option<Vec<&'static str>> = raw.select.as_deref().map(|s| rule_list(s, "select")).transpose()?;
        let ignore = rule_list(&raw.ignore, "ignore")?;
        let mut severity = Vec::new();
        for (name, level) in &raw.severity {
            severity.push((rule(name, "severity")?, *level.get_ref()));
        }
        let mut exclude_set = GlobSetBuilder::new();
        for pattern in &raw.exclude {
            exclude_set.add(compile_glob(pattern.get_ref()).map_err(|m| err(pattern.span(), m))?);
        }
        let exclude_set = exclude_set.build().map_err(|e| err(0..0, e.to_string()))?;
        let mut per_path_ignores = Vec::new();
        for (pattern, names) in &raw.per_path_ignores {
            let glob = compile_glob(pattern.get_ref()).map_err(|m| err(pattern.span(), m))?;
            let matcher = GlobSetBuilder::new().add(glob).build().map_err(|e| err(pattern.span(), e.to_string()))?;
            per_path_ignores.push(PathIgnore {
                pattern: pattern.get_ref().clone(),
                matcher,
                rules: rule_list(names, "per-path-ignores")?,
            });
        }
        let era = match &raw.era {
            None => None,
            Some(e) => Some(Era::from_config(e.get_ref()).ok_or_else(|| {
                let hint = crate::words::hint(e.get_ref(), ["2026-07-28", "dual", "legacy"], "");
                err(
                    e.span(),
                    format!("unknown era `{}`; expected \"2026-07-28\", \"dual\" or \"legacy\"{hint}", e.get_ref()),
                )
            })?),
        };
        let roots_to = match &raw.roots_to {
            None => None,
            Some(r) => Some(RootsTo::parse(r.get_ref()).ok_or_else(|| {
                let hint = crate::words::hint(r.get_ref(), ["param", "config", "mrtr"], "");
                err(
                    r.span(),
                    format!("unknown roots-to `{}`; expected \"param\", \"config\" or \"mrtr\"{hint}", r.get_ref()),
                )
            })?),
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Config {
            path: path.to_path_buf(),
            dir,
            select,
            ignore,
            severity,
            exclude: raw.exclude.iter().map(|p| p.get_ref().clone()).collect(),
            exclude_set,
            per_path_ignores,
            era,
            roots_to,
            tests: raw.tests.map(|t| *t.get_ref()),
        })
    }

    /// The `exclude` pattern that matches `path` (or a folder it is in), if any.
    pub fn excluded_by(&self, path: &Path) -> Option<&str> {
        let rel = self.relative(path);
        let hit = below(&rel).find_map(|p| self.exclude_set.matches(p).first().copied())?;
        Some(&self.exclude[hit])
    }

    /// The rules that `per-path-ignores` turns off for `path`.
    pub fn ignored_at(&self, path: &Path) -> Vec<&'static str> {
        let rel = self.relative(path);
        let mut out = Vec::new();
        for p in &self.per_path_ignores {
            if below(&rel).any(|r| p.matcher.is_match(r)) {
                out.extend(p.rules.iter().copied());
            }
        }
        out
    }

    fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.dir).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
    }

    fn level(&self, rule: &str) -> Option<Level> {
        self.severity.iter().find(|(r, _)| *r == rule).map(|(_, l)| *l)
    }

    /// Whether this file's `ignore` or severity `"off"` turns the rule off.
    fn turns_off(&self, rule: &str) -> bool {
        self.ignore.contains(&rule) || self.level(rule) == Some(Level::Off)
    }
}

/// A path and the folders it is in, up to (not including) the configuration's folder: an exclude
/// pattern naming a folder excludes what is in it.
fn below(rel: &Path) -> impl Iterator<Item = &Path> {
    rel.ancestors().filter(|p| !p.as_os_str().is_empty())
}

/// Globs are relative to the configuration's folder; one without a `/` matches at any depth (as
/// in `.gitignore`), and `*` never crosses a `/` (`**` does).
fn compile_glob(pattern: &str) -> Result<globset::Glob, String> {
    let trimmed = pattern.trim_start_matches("./").trim_end_matches('/');
    if trimmed.is_empty() {
        return Err(format!("empty glob `{pattern}`"));
    }
    let full = if trimmed.contains('/') { trimmed.to_owned() } else { format!("**/{trimmed}") };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("invalid glob `{pattern}`: {}", e.kind()))
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        at: None,
        message: format!("cannot read: {}", crate::discover::io_reason(&e)),
    })
}

fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let mut message = e.message().trim().to_owned();
    // serde's "unknown field `exlcude`, expected one of …" and "unknown variant `warn`, expected
    // one of …": say which one was meant.
    let unknown = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| message.strip_prefix(p))
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name.to_owned());
    if let Some(name) = unknown {
        let candidates = if message.starts_with("unknown field") { KEYS } else { &["error", "warning", "off"][..] };
        message.push_str(&crate::words::hint(&name, candidates.iter().copied(), ""));
    }
    ConfigError {
        path: path.to_path_buf(),
        at: e.span().map(|s| LineIndex::new(text).line_col(text, s.start)),
        message,
    }
}

/// The rule selection given on the command line; it overrides configuration files.
#[derive(Debug, Clone, Default)]
pub struct CliRules {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

/// Where a configuration came from in a folder, for the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Table {
    File,
    Package,
    Workspace,
}

/// Each table of each file read, and what it holds (`None`: absent or broken).
type Tables = HashMap<(PathBuf, Table), Option<Arc<Config>>>;

/// The configuration a search found, if any.
type Found = Option<Arc<Config>>;

/// The settings of a whole run: the command line's rule selection and every configuration file
/// found, each read once (workers share it).
#[derive(Default)]
pub struct Settings {
    cli_select: Option<Vec<&'static str>>,
    cli_ignore: Vec<&'static str>,
    /// `--config FILE`: used for every file, and nothing is searched.
    explicit: Option<Arc<Config>>,
    /// `fix --roots-to`: overrides `roots-to` of every configuration.
    pub cli_roots_to: Option<RootsTo>,
    /// What the search upward found from a folder, by (folder, whether no `Cargo.toml` was
    /// passed yet): each folder is looked at once per run.
    by_dir: Mutex<HashMap<(PathBuf, bool), Found>>,
    /// Folders as spelt by the walk → canonical, so relative and absolute spellings share one
    /// cache entry (one syscall per folder, not per file).
    canonical: crate::discover::CanonicalDirs,
    loaded: Mutex<Tables>,
    errors: Mutex<Vec<ConfigError>>,
}

impl Settings {
    /// Settings from the command line, and `--config FILE` when given (else files are searched
    /// upward from each checked file).
    pub fn new(cli: &CliRules, config: Option<&Path>) -> Result<Settings, ConfigError> {
        let name = |n: &String| {
            configurable_rule(n).ok_or_else(|| ConfigError {
                path: PathBuf::from("<command line>"),
                at: None,
                message: unknown_rule(n, ""),
            })
        };
        let cli_select = if cli.select.is_empty() {
            None
        } else {
            Some(cli.select.iter().map(name).collect::<Result<Vec<_>, _>>()?)
        };
        let cli_ignore = cli.ignore.iter().map(name).collect::<Result<Vec<_>, _>>()?;
        let explicit = match config {
            None => None,
            Some(path) => {
                let canonical = std::fs::canonicalize(path).map_err(|e| ConfigError {
                    path: path.to_path_buf(),
                    at: None,
                    message: format!("cannot read: {}", crate::discover::io_reason(&e)),
                })?;
                let config = Config::load(&canonical)?.ok_or_else(|| ConfigError {
                    path: path.to_path_buf(),
                    at: None,
                    message: "has no [package.metadata.mcp-lint] or [workspace.metadata.mcp-lint] table".into(),
                })?;
                Some(Arc::new(config))
            }
        };
        Ok(Settings { cli_select, cli_ignore, explicit, ..Default::default() })
    }

    /// Errors found in configuration files so far, each once, sorted.
    pub fn errors(&self) -> Vec<ConfigError> {
        let mut errors = self.errors.lock().unwrap().clone();
        errors.sort();
        errors.dedup();
        errors
    }

    /// The configuration that applies to a file: `--config`, else the nearest one above it.
    pub fn config_for(&self, file: &Path) -> Option<Arc<Config>> {
        if let Some(c) = &self.explicit {
            return Some(c.clone());
        }
        self.config_for_dir(&self.canonical.of_file(file))
    }

    /// The roots codemod's migration forced for the crate of this manifest: `--roots-to`, else
    /// `roots-to` of its configuration; `None` lets the crate model's classification decide.
    pub fn roots_to_for(&self, manifest: &Path) -> Option<RootsTo> {
        self.cli_roots_to.or_else(|| self.config_for(manifest).and_then(|c| c.roots_to))
    }

    /// The era the configuration for this file sets, if any.
    pub fn era_for(&self, file: &Path) -> Option<Era> {
        self.config_for(file).and_then(|c| c.era)
    }

    /// Why a file or folder is excluded by configuration (`None`: it is not). A folder is judged by
    /// the configuration of the folder it is in.
    pub fn excluded(&self, path: &Path) -> Option<String> {
        let config = self.config_for(path)?;
        let full = self.canonical.of_file(path).join(path.file_name()?);
        let pattern = config.excluded_by(&full)?;
        Some(format!("excluded by `{pattern}` in {}", shown_path(&config.path)))
    }

    /// What applies to one file: which rules run, their severities, the era.
    pub fn for_file(&self, file: &Path) -> FileSettings {
        let config = self.config_for(file);
        let full = self.canonical.of_file(file).join(file.file_name().unwrap_or_default());
        let path_ignored = config.as_ref().map(|c| c.ignored_at(&full)).unwrap_or_default();
        let unused = rules::UNUSED_SUPPRESSION.name;
        let enabled = configurable_rules()
            .filter(|name| {
                if self.cli_ignore.contains(name) || path_ignored.contains(name) {
                    return false;
                }
                let off_in_file = config.as_ref().is_some_and(|c| c.turns_off(name));
                match &self.cli_select {
                    // The command line's `--select` replaces the file's; a rule it names runs even
                    // if the file turns it off. `unused-suppression` is never selected by a list.
                    Some(selected) => selected.contains(name) || (*name == unused && !off_in_file),
                    None => {
                        let selected = config.as_ref().and_then(|c| c.select.as_ref());
                        (*name == unused || selected.is_none_or(|s| s.contains(name))) && !off_in_file
                    }
                }
            })
            .collect();
        let severity = config
            .as_ref()
            .map(|c| {
                c.severity
                    .iter()
                    .filter_map(|(rule, level)| match level {
                        Level::Error => Some((*rule, Severity::Error)),
                        Level::Warning => Some((*rule, Severity::Warning)),
                        Level::Off => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        FileSettings {
            enabled,
            severity,
            tests: config.as_ref().and_then(|c| c.tests),
            era: config.as_ref().and_then(|c| c.era),
            config: config.map(|c| c.path.clone()),
        }
    }

    fn config_for_dir(&self, dir: &Path) -> Option<Arc<Config>> {
        self.search(dir, true)
    }

    /// The nearest configuration at or above `dir`. The first `Cargo.toml` on the way up is the
    /// file's own package (`own_package` until it is passed): its `[package.metadata.mcp-lint]`
    /// applies, then its workspace table; manifests further up only lend their
    /// `[workspace.metadata.mcp-lint]`. Remembered per folder, so sibling folders share the walk.
    fn search(&self, dir: &Path, own_package: bool) -> Option<Arc<Config>> {
        let key = (dir.to_path_buf(), own_package);
        if let Some(found) = self.by_dir.lock().unwrap().get(&key) {
            return found.clone();
        }
        let found = match self.search_here(dir, own_package) {
            Ok(found) => found,
            Err(own_package) => dir.parent().and_then(|parent| self.search(parent, own_package)),
        };
        self.by_dir.lock().unwrap().insert(key, found.clone());
        found
    }

    /// What one folder settles: `Ok` with the configuration (or with none, after an error), or
    /// `Err(own_package)` to go on upward.
    fn search_here(&self, folder: &Path, own_package: bool) -> Result<Option<Arc<Config>>, bool> {
        let files: Vec<PathBuf> = FILE_NAMES.iter().map(|n| folder.join(n)).filter(|p| p.is_file()).collect();
        if files.len() > 1 {
            self.errors.lock().unwrap().push(ConfigError {
                path: files[1].clone(),
                at: None,
                message: format!("both {} and {} are here; keep one", FILE_NAMES[0], FILE_NAMES[1]),
            });
            return Ok(None);
        }
        if let Some(file) = files.first() {
            return Ok(self.load(file, Table::File));
        }
        let manifest = folder.join("Cargo.toml");
        if !manifest.is_file() {
            return Err(own_package);
        }
        let tables: &[Table] = if own_package { &[Table::Package, Table::Workspace] } else { &[Table::Workspace] };
        match tables.iter().find_map(|t| self.load(&manifest, *t)) {
            Some(found) => Ok(Some(found)),
            None => Err(false),
        }
    }

    /// One table of one file, read once; an error is recorded once and the table counts as absent.
    fn load(&self, path: &Path, table: Table) -> Option<Arc<Config>> {
        let key = (path.to_path_buf(), table);
        if let Some(found) = self.loaded.lock().unwrap().get(&key) {
            return found.clone();
        }
        let mut loaded = Tables::new();
        let result = if table == Table::File {
            Config::load(path).map(|c| {
                loaded.insert(key.clone(), c.map(Arc::new));
            })
        } else {
            Config::load_manifest(path).map(|(package, workspace)| {
                loaded.insert((path.to_path_buf(), Table::Package), package.map(Arc::new));
                loaded.insert((path.to_path_buf(), Table::Workspace), workspace.map(Arc::new));
            })
        };
        if let Err(e) = result {
            self.errors.lock().unwrap().push(e);
            loaded = [Table::File, Table::Package, Table::Workspace]
                .into_iter()
                .map(|t| ((path.to_path_buf(), t), None))
                .collect();
        }
        let mut cache = self.loaded.lock().unwrap();
        for (k, v) in loaded {
            cache.entry(k).or_insert(v);
        }
        cache.get(&key).cloned().flatten()
    }
}

/// What applies to one file: the rules that are on for it and the severities configured.
#[derive(Debug, Clone)]
pub struct FileSettings {
    enabled: Vec<&'static str>,
    severity: Vec<(&'static str, Severity)>,
    /// `tests`: the level of findings in test code, when configured.
    tests: Option<Level>,
    /// The era the configuration sets, if any.
    pub era: Option<Era>,
    /// The configuration file that applies, if any.
    pub config: Option<PathBuf>,
}

impl Default for FileSettings {
    /// Every rule on, default severities.
    fn default() -> Self {
        FileSettings {
            enabled: configurable_rules().collect(),
            severity: Vec::new(),
            tests: None,
            era: None,
            config: None,
        }
    }
}

impl FileSettings {
    /// Exactly these rules (and `unused-suppression`) on, default severities.
    pub fn only(rules: &[&'static dyn Rule]) -> Self {
        let enabled = rules.iter().map(|r| r.meta().name).chain([rules::UNUSED_SUPPRESSION.name]).collect();
        FileSettings { enabled, ..FileSettings::default() }
    }

    /// Whether a rule is on for this file. `parse-error` always is.
    pub fn enables(&self, rule: &str) -> bool {
        rule == rules::PARSE_ERROR.name || self.enabled.contains(&rule)
    }

    /// Turns off the rules (not the pseudo-rules) that are not among `rules`.
    pub fn restrict_to(&mut self, rules: &[&'static dyn Rule]) {
        self.enabled
            .retain(|name| *name == rules::UNUSED_SUPPRESSION.name || rules.iter().any(|r| r.meta().name == *name));
    }

    /// The rules among `candidates` that are on for this file.
    pub fn rules_among(&self, candidates: &[&'static dyn Rule]) -> Vec<&'static dyn Rule> {
        candidates.iter().copied().filter(|r| self.enables(r.meta().name)).collect()
    }

    /// A rule's severity for this file: as configured, else what the rule and context decided.
    pub fn severity(&self, rule: &str, decided: Severity) -> Severity {
        self.severity.iter().find(|(r, _)| *r == rule).map_or(decided, |(_, s)| *s)
    }

    /// The severity of a finding in test code: `tests` when it sets one, else `decided`.
    pub fn test_severity(&self, decided: Severity) -> Severity {
        match self.tests {
            Some(Level::Error) => Severity::Error,
            Some(Level::Warning) => Severity::Warning,
            Some(Level::Off) | None => decided,
        }
    }

    /// Whether `tests = "off"` drops every finding in test code.
    pub fn tests_off(&self) -> bool {
        self.tests == Some(Level::Off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn unknown_keys_and_rules_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "mcp-lint.toml", "select = [\"server-roots-request\"]\nselec = []\n");
        let e = Config::load(&path).unwrap_err();
        assert_eq!(e.at, Some(LineCol { line: 2, column: 1 }), "{e}");
        assert!(e.message.contains("unknown field `selec`"), "{e}");
        let path = write(dir.path(), "mcp-lint.toml", "\n[severity]\nno-such-rule = \"warning\"\n");
        let e = Config::load(&path).unwrap_err();
        assert_eq!(e.at, Some(LineCol { line: 3, column: 1 }), "{e}");
        assert!(e.message.contains("unknown rule `no-such-rule` in `severity`"), "{e}");
        let path = write(dir.path(), "mcp-lint.toml", "[per-path-ignores]\n\"tests/**\" = [\"x\"]\n");
        let e = Config::load(&path).unwrap_err();
        assert_eq!(e.at, Some(LineCol { line: 2, column: 15 }), "{e}");
        let path = write(dir.path(), "mcp-lint.toml", "[severity]\nserver-roots-request = \"warn\"\n");
        let e = Config::load(&path).unwrap_err();
        assert!(e.message.contains("unknown variant `warn`"), "{e}");
        let path = write(dir.path(), "mcp-lint.toml", "era = \"2099\"\n");
        assert!(Config::load(&path).unwrap_err().message.contains("unknown era"));
    }

    /// "did you mean" offers only keys the table has, and every one of them.
    #[test]
    fn the_suggested_keys_are_the_tables() {
        for key in KEYS {
            let e = toml::from_str::<RawConfig>(&format!("{key} = 0")).err().map(|e| e.message().to_owned());
            assert!(!e.unwrap_or_default().contains("unknown field"), "{key}");
        }
        let e = toml::from_str::<RawConfig>("no-such-key = 0").err().unwrap();
        for key in KEYS {
            assert!(e.message().contains(&format!("`{key}`")), "{key} missing from KEYS' table: {}", e.message());
        }
    }

    #[test]
    fn globs_match_relative_paths_and_folders() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "mcp-lint.toml",
            "exclude = [\"generated\", \"vendor/*.rs\", \"*.jsonl\"]\n[per-path-ignores]\n\"tests/**\" = [\"server-roots-request\"]\n",
        );
        let c = Config::load(&path).unwrap().unwrap();
        let d = dir.path();
        assert_eq!(c.excluded_by(&d.join("generated/a/b.rs")), Some("generated"));
        assert_eq!(c.excluded_by(&d.join("src/generated/b.rs")), Some("generated"));
        assert_eq!(c.excluded_by(&d.join("vendor/x.rs")), Some("vendor/*.rs"));
        assert_eq!(c.excluded_by(&d.join("vendor/deep/x.rs")), None);
        assert_eq!(c.excluded_by(&d.join("t/a.jsonl")), Some("*.jsonl"));
        assert_eq!(c.excluded_by(&d.join("src/main.rs")), None);
        assert_eq!(c.ignored_at(&d.join("tests/a/b.rs")), ["server-roots-request"]);
        assert!(c.ignored_at(&d.join("src/tests.rs")).is_empty());
    }

    #[test]
    fn manifest_tables_package_before_workspace() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "Cargo.toml",
            "[workspace]\nmembers = [\"m\"]\n[workspace.metadata.mcp-lint]\nignore = [\"server-roots-request\"]\n[package]\nname = \"root\"\n[package.metadata.mcp-lint]\nignore = [\"roots-list-changed\"]\n",
        );
        write(dir.path(), "m/Cargo.toml", "[package]\nname = \"m\"\n");
        let settings = Settings::default();
        let root = settings.for_file(&dir.path().join("src/lib.rs"));
        assert!(!root.enables("roots-list-changed") && root.enables("server-roots-request"));
        let member = settings.for_file(&dir.path().join("m/src/lib.rs"));
        assert!(member.enables("roots-list-changed") && !member.enables("server-roots-request"));
    }
}
