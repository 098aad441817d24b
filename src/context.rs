//! What mcp-lint knows about the code around a file: the crate it belongs to (which MCP SDK, which
//! version, from `Cargo.toml` and `Cargo.lock`) and the role the code plays (server or client).
//! Rules read this instead of guessing on their own, and severity is decided here, in one place.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::diagnostic::Severity;

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
    /// The locked version from `Cargo.lock` when there is one, else the requirement in `Cargo.toml`.
    pub version: Option<String>,
}

/// The crate a file belongs to. A file outside any crate gets the empty context.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateContext {
    pub manifest: Option<PathBuf>,
    pub name: Option<String>,
    pub sdks: Vec<SdkDependency>,
}

impl CrateContext {
    pub fn uses(&self, sdk: Sdk) -> bool {
        self.sdks.iter().any(|d| d.sdk == sdk)
    }

    /// Reads a manifest and, when one is found at or above it, the lock file.
    pub fn from_manifest(manifest: &Path) -> CrateContext {
        let mut cx = CrateContext { manifest: Some(manifest.to_path_buf()), ..Default::default() };
        let Ok(text) = std::fs::read_to_string(manifest) else { return cx };
        let Ok(doc) = text.parse::<toml::Table>() else { return cx };
        cx.name = doc.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str()).map(str::to_owned);
        let locked = manifest.parent().map(read_lock_versions).unwrap_or_default();
        let tables = ["dependencies", "dev-dependencies", "build-dependencies"];
        let mut deps: Vec<(&String, &toml::Value)> = Vec::new();
        for t in tables {
            if let Some(table) = doc.get(t).and_then(|v| v.as_table()) {
                deps.extend(table.iter());
            }
        }
        if let Some(ws) = doc.get("workspace").and_then(|w| w.get("dependencies")).and_then(|v| v.as_table()) {
            deps.extend(ws.iter());
        }
        for (key, value) in deps {
            // `foo = { package = "rmcp", … }` renames a dependency.
            let name = value.get("package").and_then(|p| p.as_str()).unwrap_or(key);
            let Some(sdk) = Sdk::from_crate_name(name) else { continue };
            if cx.sdks.iter().any(|d| d.crate_name == name) {
                continue;
            }
            let requirement = match value {
                toml::Value::String(v) => Some(v.clone()),
                other => other.get("version").and_then(|v| v.as_str()).map(str::to_owned),
            };
            let version = locked.get(name).cloned().or(requirement);
            cx.sdks.push(SdkDependency { sdk, crate_name: name.to_owned(), version });
        }
        cx
    }

    /// How severe a finding of this impact is for this crate. Issue-level era decisions extend
    /// this one function; rules never pick a severity themselves.
    pub fn severity_for(&self, impact: Impact) -> Severity {
        match impact {
            Impact::Removed | Impact::Violation => Severity::Error,
            Impact::Deprecated => Severity::Warning,
        }
    }
}

/// Why a rule's findings matter, which decides their severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impact {
    /// Relies on something 2026-07-28 removed.
    Removed,
    /// Breaks a MUST of 2026-07-28.
    Violation,
    /// Uses something 2026-07-28 deprecates.
    Deprecated,
}

/// Versions of packages in the nearest `Cargo.lock` at or above `dir`.
fn read_lock_versions(dir: &Path) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Some(lock) = dir.ancestors().map(|d| d.join("Cargo.lock")).find(|p| p.is_file()) else {
        return out;
    };
    let Ok(text) = std::fs::read_to_string(lock) else { return out };
    let Ok(doc) = text.parse::<toml::Table>() else { return out };
    for pkg in doc.get("package").and_then(|p| p.as_array()).into_iter().flatten() {
        if let (Some(name), Some(version)) =
            (pkg.get("name").and_then(|v| v.as_str()), pkg.get("version").and_then(|v| v.as_str()))
            && Sdk::from_crate_name(name).is_some()
        {
            out.entry(name.to_owned()).or_insert_with(|| version.to_owned());
        }
    }
    out
}

/// Finds and remembers the crate of each folder, so each manifest is read once per run.
#[derive(Default)]
pub struct CrateContexts {
    by_dir: Mutex<HashMap<PathBuf, Arc<CrateContext>>>,
}

impl CrateContexts {
    pub fn for_file(&self, file: &Path) -> Arc<CrateContext> {
        let dir = file.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Some(cx) = self.by_dir.lock().unwrap().get(&dir) {
            return cx.clone();
        }
        let cx = match dir.ancestors().map(|d| d.join("Cargo.toml")).find(|p| p.is_file()) {
            Some(manifest) => {
                let key = manifest.parent().unwrap().to_path_buf();
                let cached = self.by_dir.lock().unwrap().get(&key).cloned();
                cached.unwrap_or_else(|| {
                    let cx = Arc::new(CrateContext::from_manifest(&manifest));
                    self.by_dir.lock().unwrap().insert(key, cx.clone());
                    cx
                })
            }
            None => Arc::new(CrateContext::default()),
        };
        self.by_dir.lock().unwrap().insert(dir, cx.clone());
        cx
    }
}

/// Which side of the protocol a piece of code is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Server,
    Client,
    Unknown,
}

/// Words whose presence in a file says which side it is on. They ride in the prefilter's one pass
/// over the bytes, so a file's role costs nothing extra.
pub const SERVER_WORDS: &[&str] =
    &["ServerHandler", "RoleServer", "tool_router", "tool_handler", "McpServer", "ServerRuntime"];
pub const CLIENT_WORDS: &[&str] = &["ClientHandler", "RoleClient", "McpClient", "ClientRuntime"];

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
            vec![SdkDependency { sdk: Sdk::Rmcp, crate_name: "rmcp".into(), version: Some("3.1.4".into()) }]
        );
        assert!(cx.uses(Sdk::Rmcp));
    }

    #[test]
    fn sdk_names() {
        assert_eq!(Sdk::from_crate_name("rust-mcp-sdk"), Some(Sdk::RustMcpSdk));
        assert_eq!(Sdk::from_use_root("rust_mcp_sdk"), Some(Sdk::RustMcpSdk));
        assert_eq!(Sdk::from_crate_name("turbomcp-server"), Some(Sdk::Turbomcp));
        assert_eq!(Sdk::from_crate_name("serde"), None);
        assert_eq!(Sdk::from_crate_name("memchr"), None);
    }
}
