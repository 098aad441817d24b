//! The crate model: what the parsed files of one crate say about each other, asked by rules that
//! reason across functions and files (`Rule::rust_crate`) instead of each keeping its own analysis.
//!
//! Built in two steps. On the worker that parsed a file, `extract::file_facts` makes one walk over
//! the syntax tree and keeps owned, compact facts (`FileFacts`: no syn node, no span, so they
//! outlive the tree and cross threads). After every file of the crate was checked, `CrateModel::new`
//! merges them and resolves names. Only files whose trigger words select a rule that uses the model
//! feed it (the same set with `--no-prefilter`; a rule's crate words count only where another file
//! of the crate has one of its own words), and only crates with such a file get one.
//!
//! What it knows:
//! - items: structs and enums with their fields and field types (as written, last segments),
//!   impls with their trait and self type, functions and methods with their parameters, return
//!   type, range and role (server, client), statics, consts and `OnceCell`/`OnceLock`/`Lazy`/
//!   `lazy_static!` globals, modules (from file paths and inline `mod`), `use` declarations with
//!   `as` renames, `pub use` re-exports and globs;
//! - handlers: which function answers which MCP method or notification: rmcp `ServerHandler` /
//!   `ClientHandler` and rust-mcp-sdk handler overrides (`handlers::SERVER_METHODS`), `#[tool]`
//!   and `#[prompt]` functions, and the arms of hand-written dispatchers (a `match` with MCP method
//!   strings as patterns, or with consts holding them from any module of the crate
//!   (`names::INITIALIZE => ..`, resolved when the crate is merged, `const_arms`; a `match` on the
//!   request's method), or an `if` / `else if` comparing the request's method with one:
//!   `if method == "initialize" { .. }`), with the calls each arm makes;
//! - calls: methods on `self` and on its fields (`self.session.keep(..)`, by the fields' declared
//!   types), free functions and associated functions, resolved through the modules and `use`
//!   declarations, with which parameters and client data (`Origins`) flow into
//!   each argument;
//! - state: reads and writes of `self` field paths (`self.a.b`, through guards and accessors such
//!   as `.lock().unwrap()`), with where a written value comes from and how it is written; and
//!   state places (`state`): fields reached through a local bound to them (also a second handle,
//!   `let link = Arc::clone(&self.link)`; `self.link.clone()` may be a copy), through `Arc<Inner>`
//!   fields or a chain `self.inner.state.x`, entries of a per-session map, locals of a long-lived
//!   loop (a read loop with the dispatcher inside), state parameters bound to what callers pass,
//!   statics and globals; for a handler or one dispatcher arm, what it reads and writes of them
//!   with the functions it calls (`CrateModel::state_uses`, `handler_state`);
//! - values (`request_state`, in files that mention MCP's `requestState`): which functions check
//!   integrity (HMAC, signature, AEAD, a sealing codec), which parameter a function decodes, what
//!   each function does with the state, which calls hand it to another function, and which
//!   functions return it, bound back to their call sites.
//! - `file://` cuts (`uri_cuts`, where the roots facts are kept): which string or root parameters
//!   of a function, and what is bound from them (`for p in params`, a closure over
//!   `params.iter()`), reach a cut of the scheme (`strip_prefix("file://")`, `&p[7..]`), with the
//!   cut's range; which calls each parameter is handed to, resolved as the model's calls, or as a
//!   method of a `self` field's or a parameter's declared type (`self.svc.adopt(uris)`, also
//!   through `let svc = self.svc.clone()`); and so, to a fixed point, which cuts the root URIs a
//!   function hands on reach (`uri_cuts::root_uri_cuts`);
//! - requests (`requests`, `senders`): which parameters a function makes a request's method and the
//!   method literals callers hand them; which MCP requests each function sends, itself or through
//!   the functions it calls (in files with the words of a server-sent request), with a method on a
//!   `self` field (or a local bound to one) typed as a `dyn` of the crate's trait, also through a
//!   `type` alias, and `self.m()` in a trait's default method resolved to the crate's impls of the
//!   trait; traits, `dyn` type aliases, trait impls' consts holding an MCP method, and the trait
//!   consts a generic function (`fn run<C: Command>`) makes a request's method;
//! - client data kept from `initialize` (`init_stores`): the places `initialize` code stores it in
//!   (also from the arm of a `match` on a request enum or on method constants,
//!   `FnFact::variant_arms`; the fields of a struct literal stored whole, `FieldAccess::literal`, or
//!   as a keyed map's entry, `sessions.insert(sid, State { caps, .. })`; the entry of a typed map,
//!   `state`; a trait object parameter of the crate, `sessions: &dyn SessionBackend`, one place
//!   per trait);
//!   and where one body's `peer_info()` value goes (`peer_info`, a walk on the parsing worker);
//! - handshake gates (`init_gates`, in files with a gate's words): the conditions that turn a
//!   request away (`FnFact::guards`: an `if`, a `match` guard or a `let … else` whose rejecting
//!   branch is an error, with the values they test for being set), and which of them test a place
//!   that only `initialize` code turns on;
//! - delegation (`delegation`): the crate's traits with their methods, the generic parameters and
//!   bounds of structs and impls, each impl's trait path; in handler overrides, the calls on a
//!   `self` field (or a local bound to one) given some of the override's parameters; and so which
//!   trait methods, declared and implemented, answer the MCP method of an override that hands its
//!   request on to them (`delegation::delegated`);
//! - request ids (`retries`, in crates with a file that has MRTR words): for each client (or
//!   unknown-role) function that mentions MRTR, its attempts (request constructions with where
//!   their id comes from, sends, retry loops, branches, writes to locals; a walk on the parsing
//!   worker); for every other non-server function with parameters, which of them it makes the `id`
//!   of a request it builds and which it sends whole, through the calls (`request_id_params`,
//!   `sent_params`); and a function's attempts made through such helpers (`retry_attempts`);
//!   trait default methods and functions in macro bodies that mention MRTR beside the functions
//!   (`FileFacts::retry_defaults`), with their own attempts only.
//!
//! What it does not know (yet): types of locals and of method receivers other than `self`, its
//! fields and locals bound to them (a call `x.m()` on another local is not an edge; `uri_cuts` alone
//! resolves one on a typed parameter), calls on trait objects and generics but for `senders`' and
//! `delegation`'s (a parameter `p: &dyn T` or `p: impl T` is not followed), trait default methods
//! as functions (only `senders` reads their calls; `delegation` keeps their names), closures given
//! to `tokio::spawn` as separate
//! code, `Deref` targets, which key of a map an access uses (but the type that keys a typed map's
//! entry of client data), values returned by helpers other than
//! the state and a request built from an id parameter, a request id kept in a field or passed
//! between helpers other than as a parameter, macro-generated items, `#[path]` modules, files of the crate that no model
//! rule's trigger word selected, and which of `src/bin`, `examples/`, `tests/` are crate roots of
//! their own (they are modules named after their path). What it cannot resolve stays unresolved:
//! a name resolves to an item only through the module tree, never by its name alone.

pub mod delegation;
pub mod extract;
pub mod flow;
pub mod handlers;
pub mod init_gates;
pub mod init_stores;
pub mod peer_info;
pub mod request_state;
pub mod requests;
pub mod retries;
pub mod roots;
pub mod senders;
pub mod state;
pub mod uri_cuts;

use foldhash::{HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use crate::context::Role;

/// A function of the crate: an index into `CrateModel::fns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FnId(pub u32);

/// A file of the crate model: an index into `CrateModel::files`.
pub type FileId = usize;

/// Where a value comes from, as far as one function shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Origins {
    /// Data a client declared about itself on the connection: `.capabilities`, `.client_info`,
    /// `.protocol_version`, `["capabilities"]`, `peer_info()`.
    pub client_data: bool,
    /// The function's parameters (bit `i`: the `i`-th parameter after `self`) that flow into it.
    pub params: u32,
}

impl Origins {
    pub fn is_empty(&self) -> bool {
        !self.client_data && self.params == 0
    }
    fn or(self, other: Origins) -> Origins {
        Origins { client_data: self.client_data || other.client_data, params: self.params | other.params }
    }
}

/// One file's facts, extracted on the worker that parsed it.
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    /// The file's module in its crate (`src/a/b.rs` → `["a", "b"]`).
    pub module: Vec<String>,
    pub role: Role,
    pub modules: Vec<Vec<String>>,
    pub uses: Vec<UseFact>,
    pub types: Vec<TypeFact>,
    pub globals: Vec<GlobalFact>,
    pub impls: Vec<ImplFact>,
    pub fns: Vec<FnFact>,
    /// The retry facts of the functions that mention MRTR and are no function of the model (trait
    /// default methods, functions in an item macro's body: `retries::loose_fns`): only the attempts
    /// they make themselves.
    pub retry_defaults: Vec<retries::RetryFacts>,
    /// Traits, generics and trait impls (`delegation`).
    pub delegation: delegation::FileDelegation,
    /// Traits, type aliases and the MCP method strings of trait impls' consts (`senders`).
    pub traits: senders::TraitFacts,
}

/// `use target as alias;` (or `use target;`, or `use target::*;` with `glob`), in `module`.
#[derive(Debug, Clone)]
pub struct UseFact {
    pub module: Vec<String>,
    pub alias: String,
    pub target: Vec<String>,
    pub glob: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    Struct,
    Enum,
}

#[derive(Debug, Clone)]
pub struct TypeFact {
    pub module: Vec<String>,
    pub name: String,
    pub kind: TypeKind,
    /// (field, its type as written): a tuple field is named by its index, an enum's as
    /// `Variant::field`.
    pub fields: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalKind {
    Static,
    Const,
    /// `OnceCell`, `OnceLock`, `Lazy`, `LazyLock` statics, `lazy_static!` and `thread_local!`.
    LazyInit,
}

#[derive(Debug, Clone)]
pub struct GlobalFact {
    pub module: Vec<String>,
    pub name: String,
    pub ty: String,
    pub kind: GlobalKind,
    /// A `const` holding an MCP method's string: the method, and the literal's range.
    pub method: Option<(String, Range<usize>)>,
}

/// A dispatcher arm whose pattern is a const's path (`methods::INITIALIZE => ..`), resolved when
/// the crate is merged (the const may be in another file).
#[derive(Debug, Clone)]
pub struct ConstArm {
    pub path: Vec<String>,
    /// The pattern's path, and the whole arm.
    pub pat: Range<usize>,
    pub arm: Range<usize>,
    /// The arm only rejects the method (or names it as a label).
    pub rejects: bool,
}

/// A `ConstArm` the crate resolved to a const holding an MCP method.
#[derive(Debug, Clone)]
pub struct ResolvedConstArm {
    pub fn_: FnId,
    pub pat: Range<usize>,
    pub rejects: bool,
    pub method: String,
    /// Where the const's literal is.
    pub const_file: FileId,
    pub literal: Range<usize>,
}

#[derive(Debug, Clone)]
pub struct ImplFact {
    pub module: Vec<String>,
    /// The trait's last segment (`ServerHandler`).
    pub trait_: Option<String>,
    /// The trait's path as written (`rmcp::ServerHandler`), empty for an inherent impl.
    pub trait_path: Vec<String>,
    /// The self type's path as written (`Indexer`, `crate::srv::Indexer`).
    pub self_ty: Vec<String>,
    /// Server code by its attributes (`#[tool_router]`, `#[tool_handler]`, …) or trait.
    pub role: Role,
    /// Those server attributes, by last name, with their ranges.
    pub attrs: Vec<(String, Range<usize>)>,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: Option<String>,
    pub ty: String,
}

#[derive(Debug, Clone, Default)]
pub struct FnFact {
    pub module: Vec<String>,
    pub name: String,
    /// The impl it is a method of (an index into the file's `impls`).
    pub impl_: Option<usize>,
    pub has_self: bool,
    /// Parameters after `self`.
    pub params: Vec<Param>,
    pub ret: Option<String>,
    /// The whole item, and its name.
    pub range: Range<usize>,
    pub name_range: Range<usize>,
    /// As the visitor decides it: the signature (`RoleServer`), `#[tool]`, the impl; else unknown.
    pub role: Role,
    /// In `#[cfg(test)]` code or a `#[test]` function.
    pub test: bool,
    /// The body only rejects (its result is an error: `rust::rejects::block_rejects`).
    pub rejects: bool,
    pub tool: bool,
    pub prompt: bool,
    pub calls: Vec<CallFact>,
    pub fields: Vec<FieldAccess>,
    /// Arms of a dispatcher `match` on MCP method strings, and branches of an `if` that compares
    /// the request's method with one.
    pub arms: Vec<ArmFact>,
    /// Arms of a `match` on a request enum's variants named after MCP methods
    /// (`McpRequest::Initialize(p)`, `ClientRequest::InitializeRequest(r)`; `handlers::variant_method`).
    pub variant_arms: Vec<ArmFact>,
    /// Arms of a `match` on a method whose pattern is a const's path; those that resolve to an MCP
    /// method's const are in `arms` too once the crate is merged (`CrateModel::const_arms`).
    pub const_arms: Vec<ConstArm>,
    /// State accesses not written as `self.…`: through a local bound to a place (`let g =
    /// self.state.lock().unwrap(); g.x`), of a state parameter (`state: &mut State`), of a local
    /// declared outside the loop that uses it, of a static (`state::Place`).
    pub places: Vec<FieldAccess>,
    /// `notify_*_list_changed()` calls.
    pub list_changed: Vec<Range<usize>>,
    /// Conditions that decide whether a request is turned away (an `if` or `if let` whose one
    /// branch only rejects, `rust::rejects`; a `match` arm's guard whose arm only rejects), each
    /// with a value it tests for being set (`!self.ready`, `self.state != State::Ready`,
    /// `self.session.is_none()`): (condition, tested value).
    pub guards: Vec<(Range<usize>, Range<usize>)>,
    /// A `bool` method of `self` alone (`fn is_ready(&self) -> bool`): the values its result tests
    /// for being set, as in `guards`, so that a guard calling it tests them (kept where `guards`
    /// are).
    pub getter_tests: Vec<Range<usize>>,
    /// Struct literals that start a field turned on (`Server { ready: AtomicBool::new(true), .. }`,
    /// `Some(..)`): the type as written (`Self` included) and the field; kept where `guards` are,
    /// so a handshake gate on that field is open from the start.
    pub on_inits: Vec<(Vec<String>, String)>,
    /// What it does with values: integrity checks, decoded parameters, `requestState`.
    pub values: request_state::ValueFacts,
    /// Parameters (bits as in `Origins::params`) that the body makes the `method` of a JSON-RPC
    /// request it builds or sends (see `requests`).
    pub request_method_params: u32,
    /// The client's roots in it (`roots::fn_facts`), if any.
    pub roots: Option<Box<roots::RootsFacts>>,
    /// Its request ids: the helper facts and, where it mentions MRTR, its attempts
    /// (`retries::fn_facts`); only in crates with MRTR words.
    pub retry: Option<Box<retries::RetryFacts>>,
    /// Path parameters (bits as in `Origins::params`) the body uses as a working directory, and
    /// those it compares another path against (`roots::param_dirs`): what a root handed to the
    /// function becomes.
    pub param_dirs: (u32, u32),
    /// Which parameters reach a cut of a `file://` scheme, and which calls they are handed to
    /// (`uri_cuts::fn_facts`), if any; kept where the roots facts are.
    pub uri_cuts: Option<Box<uri_cuts::UriCutFacts>>,
    /// In a handler override: the calls on a `self` field (or a local bound to one) given some of
    /// its parameters (`delegation`).
    pub delegations: Vec<delegation::Delegation>,
    /// The requests it sends by their method (`senders`): only in files with the words of a
    /// server-sent request, and where it is generic, its trait consts made a request's method.
    pub sends: Option<Box<senders::SendFacts>>,
    /// `peer_info()` values handed to calls, and parameters read as one (`peer_info::fn_facts`).
    pub peer_info: Option<Box<peer_info::PeerInfoFacts>>,
}

#[derive(Debug, Clone)]
pub enum Callee {
    /// `self.m(..)`.
    SelfMethod(String),
    /// `f(..)`, `Self::f(..)`, `Type::f(..)`, `module::f(..)`.
    Path(Vec<String>),
    /// `self.a.b.m(..)` (through guards and accessors, as `flow::self_path` reads them): a method
    /// of the type the field path holds by its declared types.
    FieldMethod(Vec<String>, String),
}

impl Callee {
    /// Whether the call's receiver is not among its arguments (a method called as one).
    pub fn has_receiver(&self) -> bool {
        !matches!(self, Callee::Path(_))
    }
}

#[derive(Debug, Clone)]
pub struct CallFact {
    pub callee: Callee,
    pub range: Range<usize>,
    /// What flows into each argument (after the receiver).
    pub args: Vec<Origins>,
    /// Each argument that is a state place (`&mut state`, `&self.inner`, `Arc::clone(&s)`): its
    /// root and path, as in `FieldAccess`.
    pub arg_places: Vec<Option<(Root, Vec<String>)>>,
    /// Arguments that are string literals naming an MCP method: (argument index, value, the
    /// literal's range).
    pub method_args: Vec<(usize, String, Range<usize>)>,
}

/// What a place is rooted at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Root {
    /// `self`: the path is its members.
    #[default]
    SelfValue,
    /// A state parameter (by reference, `Arc`, `Rc`; not a request) or a local declared outside
    /// the loop that uses it: `path[0]` names it.
    Local,
    /// A SCREAMING_CASE static or global: `path[0]` names it.
    Global,
}

/// How a place is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOp {
    /// `=`, `+=` (any compound assignment), or the method (`store`, `insert`, `add_route`, …).
    pub how: String,
    /// The value switches state: `true`, `false`, `None`, `Some(..)` (or `take()`).
    pub switch: bool,
    /// The value turns it off: `false`, `None`, `take()` (`state::is_reset`).
    pub resets: bool,
    /// Where the write ends (the assigned place, or the call's closing parenthesis).
    pub end: usize,
}

/// A read or write of a place rooted at `self` (or, in `FnFact::places`, at another `Root`).
#[derive(Debug, Clone, Default)]
pub struct FieldAccess {
    /// The members after `self`, accessors skipped: `self.state.lock().unwrap().caps` →
    /// `["state", "caps"]`.
    pub path: Vec<String>,
    /// Where `self` starts, and where each member of `path` ends: the range of the place up to
    /// member `i` is `start..ends[i]`.
    pub start: usize,
    pub ends: Vec<usize>,
    /// For a write (`=`, `set`, `insert`, `replace`, …): where the stored value comes from.
    pub write: Option<Origins>,
    pub root: Root,
    /// For a write: how.
    pub op: Option<WriteOp>,
    /// A read of the whole value (a bare local, a local bound to the place): the uses of its
    /// parts are accesses of their own.
    pub whole: bool,
    /// Inside a logging or assertion macro: does not shape a result.
    pub quiet: bool,
    /// Reached through a local bound to a `self` place (kept in `places`, not `fields`), or the bare
    /// name of a local bound to another place.
    pub aliased: bool,
    /// For a write whose value is a struct literal (`Some(Arc::new(Data { init: p, .. }))`): the
    /// fields given data from somewhere, each a place of the literal's type.
    pub literal: Option<Box<LiteralFields>>,
}

/// `Type { field: value, .. }` written to a place: the type as written and the fields whose value
/// comes from somewhere (`Origins`), with each field's range.
#[derive(Debug, Clone)]
pub struct LiteralFields {
    pub ty: Vec<String>,
    pub fields: Vec<(String, Origins, Range<usize>)>,
    /// The value of a keyed map's entry (`sessions.insert(id, Session { caps, .. })`): its fields
    /// are members of the map's place, where every entry is one place (`state`).
    pub entry: bool,
}

impl FieldAccess {
    /// The range of `self.<path[0]>…<path[depth - 1]>`.
    pub fn range(&self, depth: usize) -> Range<usize> {
        self.start..self.ends[depth.clamp(1, self.ends.len()) - 1]
    }
}

/// `"method" => body` in a dispatcher `match`.
#[derive(Debug, Clone)]
pub struct ArmFact {
    pub method: String,
    pub range: Range<usize>,
}

/// How a function answers an MCP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandlerKind {
    /// A handler trait's method, overridden (`impl ServerHandler for S { fn initialize … }`).
    Override,
    /// `#[tool]` (`tools/call`) or `#[prompt]` (`prompts/get`).
    Attribute,
    /// An arm of a `match` on the method string, inside `fn_`.
    Arm,
}

#[derive(Debug, Clone)]
pub struct Handler {
    pub method: String,
    pub fn_: FnId,
    pub kind: HandlerKind,
    pub side: Role,
    /// For an arm: its range in `fn_`'s file.
    pub arm: Option<Range<usize>>,
}

/// A resolved type: its module and name (`["srv"], "Indexer"` → `"srv::Indexer"`).
pub type TypeKey = String;

/// The merged facts of one crate, names resolved. `Send + Sync`: owned data only.
#[derive(Debug, Default)]
pub struct CrateModel {
    pub files: Vec<FileFacts>,
    /// Every function, by `FnId`: (file, index in its `fns`).
    fn_loc: Vec<(FileId, usize)>,
    /// The resolved self type of each method.
    owner: Vec<Option<TypeKey>>,
    types: HashMap<TypeKey, (FileId, usize)>,
    modules: HashSet<Vec<String>>,
    uses: HashMap<Vec<String>, Vec<UseFact>>,
    free_fns: HashMap<String, Vec<FnId>>,
    methods: HashMap<(TypeKey, String), Vec<FnId>>,
    /// Resolved on first use: most of a crate's calls are never asked about.
    callees: Vec<OnceLock<Vec<(usize, FnId)>>>,
    callers: OnceLock<Vec<Vec<FnId>>>,
    handlers: Vec<Handler>,
    /// The arms of request-enum dispatchers (`FnFact::variant_arms`), apart from `handlers`: only
    /// `init_stores` asks for them (`variant_handlers_for`).
    variant_handlers: Vec<Handler>,
    /// `requests::request_method_params` of every function, computed on first use.
    method_params: OnceLock<Vec<u32>>,
    /// `retries`' id and sent parameters of every function, computed on first use.
    retry_bits: OnceLock<Vec<(u32, u32)>>,
    roots: OnceLock<roots::RootsFlow>,
    /// `senders`' traits and what each function sends, computed on first use.
    senders: OnceLock<senders::Senders>,
    /// The names a type with methods can be written by (`written_names`): a call `X::f()` whose `X`
    /// is none of them (`Arc::new`, `String::from`) resolves to no method without a look-up.
    method_owner_names: HashSet<String>,
    /// The names a free function can be called by (`written_names`): a call of another name
    /// (`Ok(..)`, `tokio::spawn(..)`, a method's `Type::f`) is no call of one.
    free_fn_names: HashSet<String>,
    /// Dispatcher arms on a const holding an MCP method (`FnFact::const_arms`, resolved).
    pub const_arms: Vec<ResolvedConstArm>,
}

fn key(module: &[String], name: &str) -> String {
    if module.is_empty() { name.to_owned() } else { format!("{}::{name}", module.join("::")) }
}

impl CrateModel {
    /// Merges the files of one crate (in a fixed order: the caller sorts them by path).
    pub fn new(files: Vec<FileFacts>) -> CrateModel {
        let mut m = CrateModel { files, ..Default::default() };
        for (file, f) in m.files.iter().enumerate() {
            m.modules.insert(f.module.clone());
            for decl in &f.modules {
                m.modules.insert(decl.clone());
            }
            for u in &f.uses {
                m.uses.entry(u.module.clone()).or_default().push(u.clone());
            }
            for (i, t) in f.types.iter().enumerate() {
                m.types.entry(key(&t.module, &t.name)).or_insert((file, i));
            }
        }
        // Every module's ancestors are modules too.
        let all: Vec<Vec<String>> = m.modules.iter().cloned().collect();
        for module in all {
            for n in 0..module.len() {
                m.modules.insert(module[..n].to_vec());
            }
        }
        for file in 0..m.files.len() {
            // Each impl's self type once, not once per method.
            let impl_owners: Vec<TypeKey> =
                m.files[file].impls.iter().map(|imp| m.resolve_type(&imp.module, &imp.self_ty)).collect();
            for index in 0..m.files[file].fns.len() {
                let id = FnId(m.fn_loc.len() as u32);
                m.fn_loc.push((file, index));
                let f = &m.files[file].fns[index];
                let owner = f.impl_.map(|i| impl_owners[i].clone());
                match &owner {
                    Some(ty) => m.methods.entry((ty.clone(), f.name.clone())).or_default().push(id),
                    None => m.free_fns.entry(key(&f.module, &f.name)).or_default().push(id),
                }
                m.owner.push(owner);
            }
        }
        let owners = m.methods.keys().map(|(ty, _)| ty.rsplit("::").next().unwrap_or(ty).to_owned()).collect();
        m.method_owner_names = m.written_names(owners);
        let free = m.free_fns.keys().map(|k| k.rsplit("::").next().unwrap_or(k).to_owned()).collect();
        m.free_fn_names = m.written_names(free);
        m.callees = (0..m.fn_loc.len()).map(|_| OnceLock::new()).collect();
        m.resolve_const_arms();
        m.handlers = m.find_handlers();
        m.variant_handlers = m.find_variant_handlers();
        m
    }

    /// Every name an item of one of these names can be written by in some module of the crate:
    /// the names themselves and the aliases of the `use`s that lead to one, through chains of them
    /// (`use crate::p::Provider as P;`). A path whose last name is none of them resolves to none of
    /// the items, so it need not be followed through the modules.
    pub fn written_names(&self, mut names: HashSet<String>) -> HashSet<String> {
        loop {
            let renamed: Vec<String> = self
                .uses
                .values()
                .flatten()
                .filter(|u| !u.glob && u.target.last().is_some_and(|t| names.contains(t)) && !names.contains(&u.alias))
                .map(|u| u.alias.clone())
                .collect();
            if renamed.is_empty() {
                return names;
            }
            names.extend(renamed);
        }
    }

    pub fn fn_ids(&self) -> impl Iterator<Item = FnId> + '_ {
        (0..self.fn_loc.len() as u32).map(FnId)
    }

    pub fn func(&self, id: FnId) -> &FnFact {
        let (file, index) = self.fn_loc[id.0 as usize];
        &self.files[file].fns[index]
    }

    pub fn file_of(&self, id: FnId) -> FileId {
        self.fn_loc[id.0 as usize].0
    }

    /// The impl a method belongs to.
    pub fn impl_of(&self, id: FnId) -> Option<&ImplFact> {
        let (file, index) = self.fn_loc[id.0 as usize];
        self.files[file].fns[index].impl_.map(|i| &self.files[file].impls[i])
    }

    /// The resolved self type of a method.
    pub fn owner(&self, id: FnId) -> Option<&TypeKey> {
        self.owner[id.0 as usize].as_ref()
    }

    /// The code's role: the function's own (signature, attributes, impl), else its file's.
    pub fn role(&self, id: FnId) -> Role {
        let f = self.func(id);
        if f.role != Role::Unknown { f.role } else { self.files[self.file_of(id)].role }
    }

    /// A function by its path in the crate: `["srv", "helper"]` or `["srv", "Indexer", "index"]`.
    pub fn fn_by_path(&self, path: &[&str]) -> Option<FnId> {
        let (name, prefix) = path.split_last()?;
        let prefix: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
        if let Some(id) = self.free_fns.get(&key(&prefix, name)).and_then(|v| v.first()) {
            return Some(*id);
        }
        let (ty, module) = prefix.split_last()?;
        self.methods.get(&(key(module, ty), name.to_string())).and_then(|v| v.first()).copied()
    }

    /// The crate type a field path of `owner` holds, by the declared types of its fields under
    /// their wrappers (`Arc`, `Mutex`, …): `a.b` of `S { a: Arc<A> }`, `A { b: B }` is `B`.
    pub fn field_type(&self, owner: &TypeKey, path: &[String]) -> Option<TypeKey> {
        let mut ty = owner.clone();
        for member in path {
            let fact = self.type_fact(&ty)?;
            let (_, written) = fact.fields.iter().find(|(f, _)| f == member)?;
            ty = self.crate_type(&fact.module, written)?;
        }
        Some(ty)
    }

    /// The crate's struct or enum a type as written names in `module`, under its wrappers
    /// (`Arc<Svc>`): resolved through the modules and `use`s, or, when the module imports it from
    /// the crate (`use crate::svc::Service`) through a module the model has no file of (a `pub use`
    /// re-export in a file no rule's word selected), the one type of the model with that name.
    pub fn crate_type(&self, module: &[String], written: &str) -> Option<TypeKey> {
        let name = roots::innermost(written).trim_start_matches("mut ").trim_start_matches('&');
        let ty = self.resolve_type(module, &[name.to_owned()]);
        if self.type_fact(&ty).is_some() {
            return Some(ty);
        }
        let from_crate = self.uses.get(module).is_some_and(|uses| {
            uses.iter().any(|u| {
                !u.glob
                    && u.alias == name
                    && matches!(u.target.first().map(String::as_str), Some("crate" | "self" | "super"))
            })
        });
        if from_crate { self.unique_type_named(name) } else { None }
    }

    /// The one struct or enum of the model named `name` (last segment), if exactly one is: for a
    /// type whose `use` goes through a module the model has no file of (a re-export in a file no
    /// rule's word selected).
    pub fn unique_type_named(&self, name: &str) -> Option<TypeKey> {
        let mut found = self.types.keys().filter(|k| k.rsplit("::").next() == Some(name));
        let first = found.next()?;
        found.next().is_none().then(|| first.clone())
    }

    /// The methods named `name` of a resolved type (inherent and trait impls).
    pub fn methods_of(&self, ty: &TypeKey, name: &str) -> &[FnId] {
        self.methods.get(&(ty.clone(), name.to_owned())).map_or(&[], Vec::as_slice)
    }

    /// The struct or enum a resolved type names, if the crate defines it in a file of the model.
    pub fn type_fact(&self, ty: &TypeKey) -> Option<&TypeFact> {
        self.types.get(ty).map(|&(file, i)| &self.files[file].types[i])
    }

    /// The functions that answer `method` (`"initialize"`, `"tools/call"`), in model order.
    pub fn handlers_for<'m>(&'m self, method: &'m str) -> impl Iterator<Item = &'m Handler> + 'm {
        self.handlers.iter().filter(move |h| h.method == method)
    }

    /// The arms of request-enum dispatchers that answer `method` (`McpRequest::Initialize(p) => …`).
    pub fn variant_handlers_for<'m>(&'m self, method: &'m str) -> impl Iterator<Item = &'m Handler> + 'm {
        self.variant_handlers.iter().filter(move |h| h.method == method)
    }

    pub fn handlers(&self) -> &[Handler] {
        &self.handlers
    }

    /// The resolved calls a function makes: (index into its `calls`, the callee).
    pub fn callees_of(&self, id: FnId) -> &[(usize, FnId)] {
        self.callees[id.0 as usize].get_or_init(|| self.resolve_calls(id))
    }

    /// The functions whose resolved calls reach `id` (every call of the crate is resolved on the
    /// first ask).
    pub fn callers_of(&self, id: FnId) -> &[FnId] {
        let callers = self.callers.get_or_init(|| {
            let mut callers = vec![Vec::new(); self.fn_loc.len()];
            for from in self.fn_ids() {
                for &(_, to) in self.callees_of(from) {
                    let list: &mut Vec<FnId> = &mut callers[to.0 as usize];
                    if !list.contains(&from) {
                        list.push(from);
                    }
                }
            }
            callers
        });
        &callers[id.0 as usize]
    }

    /// Every function reachable from `id` through resolved calls, `id` first, breadth first.
    pub fn reachable_from(&self, id: FnId) -> Vec<FnId> {
        let mut seen = vec![id];
        let mut i = 0;
        while i < seen.len() {
            for &(_, next) in self.callees_of(seen[i]) {
                if !seen.contains(&next) {
                    seen.push(next);
                }
            }
            i += 1;
        }
        seen
    }

    /// Writes of `self.<path…>` (or of a place under it, or a container above it) in methods of
    /// `owner`.
    pub fn writers_of<'m>(
        &'m self,
        owner: &'m TypeKey,
        path: &'m [&'m str],
    ) -> impl Iterator<Item = (FnId, &'m FieldAccess)> + 'm {
        self.accesses_of(owner, path).filter(|(_, a)| a.write.is_some())
    }

    /// Reads of `self.<path…>` (or of a place under it) in methods of `owner`.
    pub fn readers_of<'m>(
        &'m self,
        owner: &'m TypeKey,
        path: &'m [&'m str],
    ) -> impl Iterator<Item = (FnId, &'m FieldAccess)> + 'm {
        self.accesses_of(owner, path).filter(|(_, a)| a.write.is_none())
    }

    fn accesses_of<'m>(
        &'m self,
        owner: &'m TypeKey,
        path: &'m [&'m str],
    ) -> impl Iterator<Item = (FnId, &'m FieldAccess)> + 'm {
        self.fn_ids().filter(move |id| self.owner(*id) == Some(owner)).flat_map(move |id| {
            self.func(id)
                .fields
                .iter()
                .filter(move |a| a.path.iter().zip(path).all(|(a, b)| a == b))
                .map(move |a| (id, a))
        })
    }

    /// The type a path names in `module` (`Indexer`, `crate::srv::Indexer`, a `use … as` alias, a
    /// re-export, a glob import). A name that resolves to nothing the model knows is taken as the
    /// module's own (so two files' unresolved `S` stay two types).
    pub fn resolve_type(&self, module: &[String], path: &[String]) -> TypeKey {
        let Some((name, prefix)) = path.split_last() else { return String::new() };
        if !prefix.is_empty() {
            return match self.resolve_module(module, prefix, 0) {
                Some(m) => self.follow_type(&m, name, 0).unwrap_or_else(|| key(&m, name)),
                None => key(prefix, name),
            };
        }
        self.follow_type(module, name, 0).unwrap_or_else(|| key(module, name))
    }

    /// `name` as seen from `module`: defined there, imported by name, or through a glob.
    fn follow_type(&self, module: &[String], name: &str, depth: usize) -> Option<TypeKey> {
        let here = key(module, name);
        if self.types.contains_key(&here) || depth > 4 {
            return Some(here).filter(|k| self.types.contains_key(k));
        }
        let uses = self.uses.get(module)?;
        for u in uses.iter().filter(|u| !u.glob && u.alias == name) {
            let (last, prefix) = u.target.split_last()?;
            let m = self.resolve_module(module, prefix, depth + 1)?;
            if let Some(found) = self.follow_type(&m, last, depth + 1) {
                return Some(found);
            }
            // `use crate::state::Session;` says where the type lives even when its file is not
            // in the model (no rule's word selected it).
            if matches!(u.target.first().map(String::as_str), Some("crate" | "self" | "super")) {
                return Some(key(&m, last));
            }
        }
        for u in uses.iter().filter(|u| u.glob) {
            if let Some(m) = self.resolve_module(module, &u.target, depth + 1)
                && let Some(found) = self.follow_type(&m, name, depth + 1)
            {
                return Some(found);
            }
        }
        None
    }

    /// The crate module a path of modules names from `module` (`crate::a`, `super::b`, `self::c`,
    /// a child module, an imported module), or `None` for another crate's.
    /// Makes the arms on consts holding an MCP method (in any module of the crate) dispatcher arms.
    fn resolve_const_arms(&mut self) {
        let mut resolved = Vec::new();
        for (i, &(file, index)) in self.fn_loc.iter().enumerate() {
            let f = &self.files[file].fns[index];
            for arm in &f.const_arms {
                if let Some((const_file, method, literal)) = self.resolve_method_const(&f.module, &arm.path) {
                    resolved.push((file, index, FnId(i as u32), arm.clone(), const_file, method, literal));
                }
            }
        }
        for (file, index, fn_, arm, const_file, method, literal) in resolved {
            self.files[file].fns[index].arms.push(ArmFact { method: method.clone(), range: arm.arm.clone() });
            let pat = arm.pat;
            self.const_arms.push(ResolvedConstArm { fn_, pat, rejects: arm.rejects, method, const_file, literal });
        }
    }

    /// The const a path written in `module` names, when it holds an MCP method: its file, the
    /// method and the literal's range. Through `use` renames and globs.
    fn resolve_method_const(&self, module: &[String], path: &[String]) -> Option<(FileId, String, Range<usize>)> {
        let find = |m: &[String], name: &str| {
            self.files.iter().enumerate().find_map(|(file, facts)| {
                facts.globals.iter().find(|g| g.module == m && g.name == name).and_then(|g| {
                    let (method, literal) = g.method.clone()?;
                    Some((file, method, literal))
                })
            })
        };
        let (last, prefix) = path.split_last()?;
        if !prefix.is_empty() {
            return find(&self.resolve_module(module, prefix, 0)?, last);
        }
        if let Some(found) = find(module, last) {
            return Some(found);
        }
        let uses = self.uses.get(module)?;
        if let Some(u) = uses.iter().find(|u| !u.glob && u.alias == *last) {
            let (name, at) = u.target.split_last()?;
            return find(&self.resolve_module(module, at, 0)?, name);
        }
        uses.iter().filter(|u| u.glob).find_map(|u| find(&self.resolve_module(module, &u.target, 0)?, last))
    }

    fn resolve_module(&self, module: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        let Some((first, rest)) = path.split_first() else { return Some(module.to_vec()) };
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().checked_sub(1)?].to_vec(),
            name => {
                let child = [module, &[name.to_owned()]].concat();
                if self.modules.contains(&child) {
                    child
                } else if let Some(u) =
                    self.uses.get(module).and_then(|us| us.iter().find(|u| !u.glob && u.alias == name))
                    && depth < 4
                {
                    self.resolve_module(module, &u.target, depth + 1)?
                } else if self.modules.contains(&vec![name.to_owned()]) && module.is_empty() {
                    vec![name.to_owned()]
                } else {
                    return None;
                }
            }
        };
        for seg in rest {
            if seg == "super" {
                base.pop()?;
            } else {
                base.push(seg.clone());
            }
        }
        Some(base)
    }

    fn resolve_calls(&self, id: FnId) -> Vec<(usize, FnId)> {
        let f = self.func(id);
        let owner = self.owner(id);
        let mut out = Vec::new();
        for (i, call) in f.calls.iter().enumerate() {
            let targets: Vec<FnId> = match &call.callee {
                Callee::SelfMethod(name) => owner.and_then(|o| self.methods.get(&(o.clone(), name.clone()))).cloned(),
                Callee::Path(path) => self.resolve_fn_path(&f.module, owner, path),
                Callee::FieldMethod(path, name) => owner
                    .and_then(|o| self.field_type(o, path))
                    .and_then(|t| self.methods.get(&(t, name.clone())))
                    .cloned(),
            }
            .unwrap_or_default();
            out.extend(targets.into_iter().map(|t| (i, t)));
        }
        out
    }

    /// The crate functions a path names in function `id`'s code (`helper`, `Self::f`, `paths::to_path`),
    /// as its calls of that path resolve.
    pub fn fns_named_from(&self, id: FnId, path: &[String]) -> Vec<FnId> {
        self.resolve_fn_path(&self.func(id).module, self.owner(id), path).unwrap_or_default()
    }

    fn resolve_fn_path(&self, module: &[String], owner: Option<&TypeKey>, path: &[String]) -> Option<Vec<FnId>> {
        let (name, prefix) = path.split_last()?;
        if prefix.len() == 1 && prefix[0] == "Self" {
            return self.methods.get(&(owner?.clone(), name.clone())).cloned();
        }
        if prefix.is_empty() {
            if !self.free_fn_names.contains(name) {
                return None;
            }
            if let Some(found) = self.free_fns.get(&key(module, name)) {
                return Some(found.clone());
            }
            let u = self.uses.get(module)?.iter().find(|u| !u.glob && u.alias == *name)?;
            return self.resolve_fn_path(
                module,
                owner,
                &[vec!["crate".to_owned()], absolute(module, &u.target)?].concat(),
            );
        }
        // `Type::f` or `module::f`.
        if self.free_fn_names.contains(name)
            && let Some(m) = self.resolve_module(module, prefix, 0)
            && let Some(found) = self.free_fns.get(&key(&m, name))
        {
            return Some(found.clone());
        }
        if !prefix.last().is_some_and(|t| self.method_owner_names.contains(t)) {
            return None;
        }
        let ty = self.resolve_type(module, prefix);
        self.methods.get(&(ty, name.clone())).cloned()
    }

    fn find_handlers(&self) -> Vec<Handler> {
        let mut out = Vec::new();
        for id in self.fn_ids() {
            let f = self.func(id);
            if let Some(imp) = self.impl_of(id)
                && let Some((side, method)) = imp.trait_.as_deref().and_then(|t| handlers::trait_method(t, &f.name))
            {
                out.push(Handler { method: method.to_owned(), fn_: id, kind: HandlerKind::Override, side, arm: None });
            }
            if f.tool || f.prompt {
                let method = if f.tool { "tools/call" } else { "prompts/get" };
                let kind = HandlerKind::Attribute;
                out.push(Handler { method: method.to_owned(), fn_: id, kind, side: Role::Server, arm: None });
            }
            for arm in &f.arms {
                let (method, range) = (arm.method.clone(), Some(arm.range.clone()));
                out.push(Handler { method, fn_: id, kind: HandlerKind::Arm, side: self.role(id), arm: range });
            }
        }
        out
    }

    fn find_variant_handlers(&self) -> Vec<Handler> {
        let mut out = Vec::new();
        for id in self.fn_ids() {
            for arm in &self.func(id).variant_arms {
                let (method, range) = (arm.method.clone(), Some(arm.range.clone()));
                out.push(Handler { method, fn_: id, kind: HandlerKind::Arm, side: self.role(id), arm: range });
            }
        }
        out
    }

    /// The client's roots across the crate: where roots lists are kept and returned, and every use
    /// of them (`roots::RootsFlow`), resolved on the first ask.
    pub fn roots(&self) -> &roots::RootsFlow {
        self.roots.get_or_init(|| roots::RootsFlow::new(self))
    }

    /// The functions a handler's code calls directly: for an arm, the calls inside it; else every
    /// call of the function.
    pub fn handler_callees(&self, h: &Handler) -> Vec<(usize, FnId)> {
        let f = self.func(h.fn_);
        self.callees_of(h.fn_)
            .iter()
            .filter(|(i, _)| h.arm.as_ref().is_none_or(|arm| within(&f.calls[*i].range, arm)))
            .copied()
            .collect()
    }
}

/// A `use` target made absolute from `module` (for names re-resolved from the crate root).
fn absolute(module: &[String], target: &[String]) -> Option<Vec<String>> {
    let (first, rest) = target.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        other => [module, &[other.to_owned()]].concat(),
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Whether `inner` lies inside `outer`.
pub fn within(inner: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The module of a file from its path in the crate's folder: `src/lib.rs` and `src/main.rs` are
/// the root, `src/a/mod.rs` and `src/a.rs` are `a`; other files (`tests/x.rs`, a loose file) are
/// named by their whole path.
pub fn module_of(relative: &std::path::Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if let Some(last) = parts.last_mut()
        && let Some(stem) = last.strip_suffix(".rs")
    {
        *last = stem.to_owned();
    }
    if parts.first().is_some_and(|p| p == "src") {
        parts.remove(0);
        if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
            parts.clear();
        }
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The model of files given as (path in the crate, text).
    pub(crate) fn model_of(files: &[(&str, &str)]) -> CrateModel {
        let facts = files
            .iter()
            .map(|(path, text)| {
                let parsed = crate::rust::parse::parse_rust(text).unwrap();
                let file = crate::source::SourceFile::new(path.into(), path.to_string(), text.to_string());
                let ctx = crate::context::CrateContext::default();
                let cx = crate::cx::Cx::new(&file, &ctx, crate::cx::Origin::Rust);
                let facts = extract::file_facts(&cx, &parsed.file, module_of(std::path::Path::new(path)), true, true);
                proc_macro2::extra::invalidate_current_thread_spans();
                facts
            })
            .collect();
        CrateModel::new(facts)
    }

    #[test]
    fn modules_from_paths() {
        let m = |p: &str| module_of(std::path::Path::new(p));
        assert_eq!(m("src/lib.rs"), Vec::<String>::new());
        assert_eq!(m("src/a/mod.rs"), ["a"]);
        assert_eq!(m("src/a/b.rs"), ["a", "b"]);
        assert_eq!(m("tests/t.rs"), ["tests", "t"]);
    }

    #[test]
    fn resolves_across_files_and_renames() {
        let model = model_of(&[
            (
                "src/state.rs",
                "pub struct Srv { caps: Mutex<Option<Caps>> }\nimpl Srv { pub fn remember(&self, c: Caps) { *self.caps.lock().unwrap() = Some(c); } }\npub fn free(x: u8) {}\n",
            ),
            (
                "src/handler.rs",
                "use crate::state::{Srv as Server, free};\nimpl ServerHandler for Server {\n    async fn initialize(&self, request: InitializeRequestParams) { self.remember(request.capabilities); free(1); }\n    async fn list_tools(&self) { let c = self.caps.lock().unwrap().clone(); }\n}\n",
            ),
            ("src/other.rs", "struct Srv { caps: u8 }\nimpl Srv { fn look(&self) -> u8 { self.caps } }\n"),
        ]);
        let init = model.handlers_for("initialize").next().expect("the initialize override");
        assert_eq!(init.kind, HandlerKind::Override);
        assert_eq!(model.owner(init.fn_).map(String::as_str), Some("state::Srv"));
        let remember = model.fn_by_path(&["state", "Srv", "remember"]).unwrap();
        let free = model.fn_by_path(&["state", "free"]).unwrap();
        let callees: Vec<FnId> = model.callees_of(init.fn_).iter().map(|(_, f)| *f).collect();
        assert_eq!(callees, [remember, free]);
        assert_eq!(model.callers_of(remember), [init.fn_]);
        assert_eq!(model.reachable_from(init.fn_), [init.fn_, remember, free]);
        let call = &model.func(init.fn_).calls[0];
        assert_eq!(call.args, [Origins { client_data: true, params: 1 }]);
        let owner = "state::Srv".to_owned();
        let writers: Vec<FnId> = model.writers_of(&owner, &["caps"]).map(|(f, _)| f).collect();
        assert_eq!(writers, [remember]);
        assert_eq!(model.func(remember).fields[0].write, Some(Origins { client_data: false, params: 1 }));
        let readers: Vec<&str> =
            model.readers_of(&owner, &["caps"]).map(|(f, _)| model.func(f).name.as_str()).collect();
        assert_eq!(readers, ["list_tools"], "the other file's `Srv` is another type");
    }

    #[test]
    fn methods_of_a_fields_type_are_callees() {
        let model = model_of(&[
            (
                "src/session.rs",
                "pub struct Session { caps: Mutex<Option<Caps>> }\nimpl Session { pub fn keep(&self, c: Caps) { *self.caps.lock().unwrap() = Some(c); } }\n",
            ),
            (
                "src/server.rs",
                "use crate::session::Session;\npub struct Srv { session: Arc<Session>, n: u8 }\nimpl ServerHandler for Srv {\n    async fn initialize(&self, request: InitializeRequestParams) { self.session.keep(request.capabilities); self.n.keep(1); }\n}\n",
            ),
        ]);
        let init = model.handlers_for("initialize").next().expect("the initialize override");
        let keep = model.fn_by_path(&["session", "Session", "keep"]).unwrap();
        let callees: Vec<FnId> = model.callees_of(init.fn_).iter().map(|(_, f)| *f).collect();
        assert_eq!(callees, [keep], "`self.n` is no crate type: its `keep` is not `Session::keep`");
        let call = &model.func(init.fn_).calls[0];
        assert_eq!(call.args, [Origins { client_data: true, params: 1 }]);
    }

    #[test]
    fn dispatcher_arms_and_attributes() {
        let model = model_of(&[(
            "src/main.rs",
            "struct H;\nimpl H {\n    fn handle(&mut self, method: &str, params: Value) {\n        match method {\n            \"initialize\" => self.init(params),\n            \"tools/call\" | \"tools/list\" => { tools::run(); }\n            _ => {}\n        }\n    }\n    fn init(&mut self, p: Value) { self.caps = p[\"capabilities\"].clone(); }\n}\n#[tool]\nasync fn echo(s: String) -> String { s }\n",
        )]);
        let init = model.handlers_for("initialize").next().unwrap();
        assert_eq!(init.kind, HandlerKind::Arm);
        let callees: Vec<&str> =
            model.handler_callees(init).iter().map(|(_, f)| model.func(*f).name.as_str()).collect();
        assert_eq!(callees, ["init"]);
        assert_eq!(model.handlers_for("tools/list").count(), 1);
        let tools: Vec<&str> = model.handlers_for("tools/call").map(|h| model.func(h.fn_).name.as_str()).collect();
        assert_eq!(tools, ["handle", "echo"]);
        let init_fn = model.fn_by_path(&["H", "init"]).unwrap();
        assert_eq!(model.func(init_fn).fields[0].write, Some(Origins { client_data: true, params: 1 }));
    }

    #[test]
    fn request_method_parameters_through_helpers() {
        let model = model_of(&[
            (
                "src/outbound.rs",
                "use crate::Session;
fn emit(out: &mut Stdout, id: u64, method: &str, params: Value) { write(out, &json!({\"id\": id, \"method\": method, \"params\": params})); }
impl Session {
    fn ask(&mut self, method: &str, p: Value) { emit(&mut self.out, 1, method, p); }
    fn tell(&mut self, method: &str) { write(&json!({\"method\": method})); }
}
",
            ),
            (
                "src/tools.rs",
                "use crate::Session;
impl Session { fn t(&mut self) { self.ask(\"elicitation/create\", v); self.tell(\"notifications/progress\"); } }
",
            ),
            ("src/lib.rs", "pub struct Session { out: Stdout }\n"),
        ]);
        let emit = model.fn_by_path(&["outbound", "emit"]).unwrap();
        assert_eq!(model.request_method_params(emit), 0b100);
        let ask = model.fn_by_path(&["Session", "ask"]).unwrap();
        assert_eq!(model.request_method_params(ask), 0b1);
        let sent: Vec<&str> = model.sent_method_literals().iter().map(|s| s.method).collect();
        assert_eq!(sent, ["elicitation/create"]);
    }
}
