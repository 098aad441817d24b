//! One pass over a file's bytes decides whether it needs parsing at all, which rules can fire in it,
//! and which side (server or client) it is on. Built once per run from the enabled rules' trigger
//! words and the role words.
//!
//! Two stages, because almost no file of a real tree contains any word: a first pass (SIMD literal
//! search, about 1 GB/s) asks only whether the file holds anything that matters; only the few
//! files where it does get the full search that says which words are there, and where the file
//! first names a protocol revision (one search for both).

use std::path::Path;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

use crate::context::era::{self, FileSignals, LEGACY_WORDS, MODERN_WORDS};
use crate::context::{CLIENT_WORDS, CrateContexts, MCP_CODE_WORDS, MCP_EVIDENCE, Role, SERVER_WORDS};
use crate::rules::{Rule, TriggerKind};
use crate::source::FileKind;

/// A trigger word written `\bWord` counts only where an identifier starts (the byte before it is
/// not a letter, digit or `_`), so `\bListChanged` ignores `playlistChanged`. Words without it
/// count anywhere, inside longer identifiers too (`peer_info` in `set_peer_info`).
pub const WORD_START: &str = "\\b";

pub struct Prefilter {
    /// Every word (`\bWord` for word-start words), by pattern index: what the scan of a file that
    /// passed the first pass looks for.
    words: Vec<&'static str>,
    /// The scan's search, built when a file first passes the first pass: a run where none does
    /// never pays for it.
    scan_search: OnceLock<ScanSearch>,
    /// Any trigger word, protocol revision or suppression marker: a file without one needs
    /// nothing more than reading. For Rust files the JSON-only words stand behind `json!`
    /// (quoted words such as `"result"` are common in Rust and would let many files through).
    /// Each is built when first needed: a run over Rust files never builds the JSON one.
    first_pass_rust: LazyFirstPass,
    first_pass_json: LazyFirstPass,
    /// What each pattern means, by pattern index.
    meaning: Vec<Meaning>,
    rules: Vec<&'static dyn Rule>,
    /// When off, every rule is active for every file (for measuring, and for the test that proves
    /// trigger words never hide a finding).
    enabled: bool,
}

#[derive(Clone, Default)]
struct Meaning {
    /// Rules (indexes into `rules`) this word activates in any file.
    rules: Vec<usize>,
    /// Rules it activates in JSON files, and in Rust files that contain `json!`.
    json_rules: Vec<usize>,
    /// Rules it activates in JSON files, and in Rust files of MCP code (`RuleMeta::mcp_triggers`).
    mcp_rules: Vec<usize>,
    /// Rules it lets a Rust file feed the crate model of, when another file of the crate selects
    /// them (`RuleMeta::crate_triggers`).
    crate_rules: Vec<usize>,
    /// A word that makes a Rust file MCP code (role words, `MCP_EVIDENCE`, `MCP_CODE_WORDS`).
    mcp_code: bool,
    server: bool,
    client: bool,
    /// The `json!` marker itself.
    json_macro: bool,
    /// Counts only at the start of an identifier (`\b`).
    word_start: bool,
    /// A protocol revision (`context::era`): where it first appears outside comments matters,
    /// so every place it appears is looked at, not only the first.
    revision: Option<Revision>,
}

#[derive(Clone, Copy)]
enum Revision {
    Modern = 0,
    Legacy = 1,
}

/// What the prefilter found in one file.
pub struct Scan {
    /// The rules that can fire in the file whatever its crate (all of them with the prefilter
    /// off); the engine asks `rules_for`, which adds the MCP-only words' rules in SDK crates.
    pub active: Vec<&'static dyn Rule>,
    /// With the rules that only MCP-code words activated in a Rust file whose text shows no MCP
    /// code: what can fire if its crate depends on an MCP SDK (`Scan::rules_for`). Empty when no such
    /// rule is left out of `active`.
    with_sdk: Vec<&'static dyn Rule>,
    pub role: Role,
    /// The rules that use the crate model (`Rule::uses_model`) whose words are in the file, with
    /// the prefilter on or off (the model's files are the same either way), without and with an
    /// MCP SDK in the crate (as `active` and `with_sdk`).
    model: [Vec<&'static dyn Rule>; 2],
    /// Model rules that only crate words (`RuleMeta::crate_triggers`) select in this Rust file:
    /// they run on it, and it feeds their model, when another file of its crate selects them
    /// (`CrateContexts::crate_selects`).
    by_crate: Vec<&'static dyn Rule>,
}

impl Scan {
    /// The rules using the crate model that the file's words select (see `rules_for`): the file
    /// feeds their crate's model when there is one.
    pub fn model_rules_for(&self, path: &Path, contexts: &CrateContexts) -> Vec<&'static dyn Rule> {
        let mut rules = self.own_model_rules(path, contexts);
        add_crate_selected(&self.by_crate, &mut rules, path, contexts);
        rules
    }

    /// The model rules the file's own words select, without the crate words: what makes the
    /// crate's other files with crate words count (`CrateContexts::select_model_rules`).
    pub fn own_model_rules(&self, path: &Path, contexts: &CrateContexts) -> Vec<&'static dyn Rule> {
        if self.model[0].len() == self.model[1].len() {
            return self.model[0].clone();
        }
        let with_sdk = !contexts.for_file(path).sdks.is_empty();
        self.model[with_sdk as usize].clone()
    }

    /// The rules that can fire in the file at `path`: `active`, and the MCP-only words' rules too
    /// when the file's crate depends on an MCP SDK (looked up only then), and the crate words'
    /// rules that another file of the crate selects.
    pub fn rules_for(self, path: &Path, contexts: &CrateContexts) -> Vec<&'static dyn Rule> {
        let Scan { active, with_sdk, by_crate, .. } = self;
        let mut rules =
            if !with_sdk.is_empty() && !contexts.for_file(path).sdks.is_empty() { with_sdk } else { active };
        add_crate_selected(&by_crate, &mut rules, path, contexts);
        rules
    }

    /// Whether the file needs parsing if its crate has an MCP SDK, or if another file of its
    /// crate selects a rule its crate words name.
    pub fn may_need_parsing(&self) -> bool {
        !self.active.is_empty() || !self.with_sdk.is_empty() || !self.by_crate.is_empty()
    }
}

/// Adds to `rules` those of `by_crate` that another file of the crate at `path` selects.
fn add_crate_selected(
    by_crate: &[&'static dyn Rule],
    rules: &mut Vec<&'static dyn Rule>,
    path: &Path,
    contexts: &CrateContexts,
) {
    for &rule in by_crate {
        let name = rule.meta().name;
        if !rules.iter().any(|r| r.meta().name == name) && contexts.crate_selects(path, name) {
            rules.push(rule);
        }
    }
}

/// How a `json!` body shows in a Rust file's bytes.
const JSON_MACRO: &str = "json!";

/// A trigger word without its `\b` marker, and whether it had one.
pub fn split_word(word: &str) -> (&str, bool) {
    match word.strip_prefix(WORD_START) {
        Some(bare) => (bare, true),
        None => (word, false),
    }
}

/// Whether `text` contains a trigger word as the prefilter counts it (`\b` honoured): for rules
/// that look for their own trigger words in a fn or a token, so they agree with the prefilter.
pub fn mentions(text: &str, word: &str) -> bool {
    let (bare, word_start) = split_word(word);
    if !word_start {
        return text.contains(bare);
    }
    text.match_indices(bare).any(|(at, _)| starts_identifier(text.as_bytes(), at))
}

impl Prefilter {
    pub fn new(rules: &[&'static dyn Rule], enabled: bool) -> Prefilter {
        let mut words: Vec<&'static str> = Vec::new();
        let mut meaning: Vec<Meaning> = Vec::new();
        let mut entry = |w: &'static str| -> usize {
            match words.iter().position(|x| *x == w) {
                Some(p) => p,
                None => {
                    words.push(w);
                    meaning.push(Meaning::default());
                    words.len() - 1
                }
            }
        };
        let mut plan: Vec<(usize, usize, TriggerKind)> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for (kind, words) in rule.meta().trigger_lists() {
                words.iter().for_each(|&w| plan.push((entry(w), i, kind)));
            }
        }
        let server: Vec<usize> = SERVER_WORDS.iter().map(|w| entry(w)).collect();
        let client: Vec<usize> = CLIENT_WORDS.iter().map(|w| entry(w)).collect();
        let mcp_code: Vec<usize> = MCP_EVIDENCE.iter().chain(MCP_CODE_WORDS).map(|w| entry(w)).collect();
        let modern: Vec<usize> = MODERN_WORDS.iter().map(|w| entry(w)).collect();
        let legacy: Vec<usize> = LEGACY_WORDS.iter().map(|w| entry(w)).collect();
        let json_macro = entry(JSON_MACRO);
        for (p, i, kind) in plan {
            let m = &mut meaning[p];
            match kind {
                TriggerKind::Any => m.rules.push(i),
                TriggerKind::Json => m.json_rules.push(i),
                TriggerKind::Mcp => m.mcp_rules.push(i),
                TriggerKind::Crate => m.crate_rules.push(i),
            }
        }
        // Role words make a file MCP code too.
        server.iter().for_each(|&p| meaning[p].server = true);
        client.iter().for_each(|&p| meaning[p].client = true);
        mcp_code.iter().chain(&server).chain(&client).for_each(|&p| meaning[p].mcp_code = true);
        meaning[json_macro].json_macro = true;
        modern.iter().for_each(|&p| meaning[p].revision = Some(Revision::Modern));
        legacy.iter().for_each(|&p| meaning[p].revision = Some(Revision::Legacy));
        // The first pass looks for the rules' words, not the role words: alone, those activate
        // nothing. In Rust files, `json!` stands for the JSON-only words. It also looks for what
        // the engine's other scans of a file need.
        let words_where = |keep: &dyn Fn(&Meaning) -> bool| -> Vec<&'static str> {
            let mut out: Vec<&'static str> =
                words.iter().zip(&meaning).filter(|(_, m)| keep(m)).map(|(w, _)| *w).collect();
            out.extend(MODERN_WORDS.iter().chain(LEGACY_WORDS));
            out.push(crate::suppress::MARKER);
            out
        };
        // An MCP-only word lets a Rust file through: whether its crate has an SDK is known later;
        // so does a crate word: whether another file of the crate selects its rule, too.
        let first_pass_rust = LazyFirstPass::new(words_where(&|m| {
            !m.rules.is_empty() || !m.mcp_rules.is_empty() || !m.crate_rules.is_empty() || m.json_macro
        }));
        let first_pass_json = LazyFirstPass::new(words_where(&|m| {
            !m.rules.is_empty() || !m.json_rules.is_empty() || !m.mcp_rules.is_empty()
        }));
        for (m, w) in meaning.iter_mut().zip(&words) {
            m.word_start = split_word(w).1;
        }
        Prefilter {
            words,
            scan_search: OnceLock::new(),
            first_pass_rust,
            first_pass_json,
            meaning,
            rules: rules.to_vec(),
            enabled,
        }
    }

    /// The prefilter of every rule, switched off (every rule active; the words give the role):
    /// what checks of single documents use, built once.
    pub fn every_rule() -> &'static Prefilter {
        static SHARED: OnceLock<Prefilter> = OnceLock::new();
        SHARED.get_or_init(|| Prefilter::new(crate::rules::ALL, false))
    }

    /// Whether a file can matter at all: it holds a trigger word, a protocol revision or a
    /// suppression comment. When false, no rule can fire in it and the file says nothing of its
    /// crate's era, so it need not be scanned further. Always true with the prefilter off.
    pub fn may_matter(&self, bytes: &[u8], kind: FileKind) -> bool {
        !self.enabled || self.first_pass(kind).is_match(bytes)
    }

    /// The words the first pass searches for in files of this kind (for `benches/scan_speed.rs`).
    pub fn first_pass_words(&self, kind: FileKind) -> &[&'static str] {
        &self.first_pass(kind).words
    }

    fn first_pass(&self, kind: FileKind) -> &FirstPass {
        if kind == FileKind::Rust { self.first_pass_rust.get() } else { self.first_pass_json.get() }
    }

    /// Which rules can fire in a file, and its role, from every word it contains.
    pub fn scan(&self, bytes: &[u8], kind: FileKind) -> Scan {
        self.scan_file(bytes, kind).0
    }

    /// `scan`, and where the file names protocol revisions (what `EraScanner::file_signals`
    /// says): one search over the bytes for both.
    pub fn scan_file(&self, bytes: &[u8], kind: FileKind) -> (Scan, FileSignals) {
        let mut hits = Hits::new(&self.meaning, bytes);
        match self.scan_search.get_or_init(|| ScanSearch::new(&self.words)) {
            ScanSearch::Teddy(groups) => groups.iter().for_each(|g| g.find_all(&mut hits)),
            ScanSearch::Automaton(automaton) => {
                for m in automaton.find_overlapping_iter(bytes) {
                    let p = m.pattern().as_usize();
                    if hits.wants(p) && (!self.meaning[p].word_start || starts_identifier(bytes, m.start())) {
                        hits.add(p, m.start());
                    }
                }
            }
        }
        let at = |first: Option<(usize, usize)>| first.map(|(start, p)| (era::line_at(bytes, start), self.words[p]));
        let signals = FileSignals {
            modern: at(hits.first[Revision::Modern as usize]),
            legacy: at(hits.first[Revision::Legacy as usize]),
            ..FileSignals::default()
        };
        (self.scan_from(&hits.hit, kind), signals)
    }

    /// The rules and the role that the words found (`hit`, by pattern index) give a file.
    fn scan_from(&self, hit: &[bool], kind: FileKind) -> Scan {
        let found = || self.meaning.iter().zip(hit).filter(|(_, h)| **h).map(|(m, _)| m);
        let reads_json = kind != FileKind::Rust || found().any(|m| m.json_macro);
        let mcp_code = kind != FileKind::Rust || found().any(|m| m.mcp_code);
        // What the words alone select, without and with an MCP SDK in the crate.
        let mut by_words = vec![false; self.rules.len()];
        let mut by_words_with_sdk = by_words.clone();
        let mut by_crate_words = by_words.clone();
        let (mut server, mut client) = (false, false);
        for meaning in found() {
            for &i in &meaning.rules {
                (by_words[i], by_words_with_sdk[i]) = (true, true);
            }
            if reads_json {
                meaning.json_rules.iter().for_each(|&i| (by_words[i], by_words_with_sdk[i]) = (true, true));
            }
            for &i in &meaning.mcp_rules {
                by_words[i] |= mcp_code;
                by_words_with_sdk[i] = true;
            }
            if kind == FileKind::Rust {
                meaning.crate_rules.iter().for_each(|&i| by_crate_words[i] = true);
            }
            server |= meaning.server;
            client |= meaning.client;
        }
        let pick = |on: &[bool], keep: &dyn Fn(&dyn Rule) -> bool| {
            self.rules.iter().zip(on).filter(|(r, on)| **on && keep(**r)).map(|(r, _)| *r).collect::<Vec<_>>()
        };
        // The model's files are what the words select with the prefilter on or off.
        let model = [pick(&by_words, &|r| r.uses_model()), pick(&by_words_with_sdk, &|r| r.uses_model())];
        // What only the crate words select: the crate decides (`Scan::rules_for`).
        by_crate_words.iter_mut().zip(&by_words).for_each(|(c, own)| *c &= !own);
        let by_crate = pick(&by_crate_words, &|r| r.uses_model());
        // With the prefilter off, every rule is active.
        if !self.enabled {
            by_words.fill(true);
            by_words_with_sdk.fill(true);
        }
        let with_sdk = if by_words_with_sdk == by_words { Vec::new() } else { pick(&by_words_with_sdk, &|_| true) };
        Scan { active: pick(&by_words, &|_| true), with_sdk, role: Role::from_words(server, client), model, by_crate }
    }
}

/// What the scan has found so far in one file.
struct Hits<'a> {
    meaning: &'a [Meaning],
    bytes: &'a [u8],
    /// Whether each word (by pattern index) is in the file, `\b` honoured.
    hit: Vec<bool>,
    /// By `Revision`: the first place (offset, pattern index) a revision word of that kind
    /// appears outside comments.
    first: [Option<(usize, usize)>; 2],
}

impl Hits<'_> {
    fn new<'a>(meaning: &'a [Meaning], bytes: &'a [u8]) -> Hits<'a> {
        Hits { meaning, bytes, hit: vec![false; meaning.len()], first: [None; 2] }
    }

    /// Whether an occurrence of word `p` can still change anything: the first one does; for a
    /// protocol revision, so can one earlier than the first seen (groups search one after another).
    fn wants(&self, p: usize) -> bool {
        !self.hit[p] || self.meaning[p].revision.is_some()
    }

    /// Word `p` is at `start`.
    fn add(&mut self, p: usize, start: usize) {
        self.hit[p] = true;
        if let Some(revision) = self.meaning[p].revision {
            let first = &mut self.first[revision as usize];
            if first.is_none_or(|(seen, _)| start < seen) && era::in_code(self.bytes, start) {
                *first = Some((start, p));
            }
        }
    }
}

/// The scan's search for every word. Like the first pass, SIMD searchers of fewer words (letters,
/// stems, none containing another) whose hits are checked against the words around them: several
/// times fewer instructions than an automaton's loop over every byte. One automaton where the CPU
/// has no SIMD for it.
enum ScanSearch {
    Teddy(Vec<Group>),
    Automaton(AhoCorasick),
}

impl ScanSearch {
    /// `words` as the prefilter spells them (`\bWord` for word-start words).
    fn new(words: &[&'static str]) -> ScanSearch {
        // Groups of up to 32 words: the searcher then has 8 buckets and steps 32 bytes at a time.
        // Fewer false candidates than the first pass's groups of 64, which pays here, where the
        // whole file is searched by every group (2.5 M instructions fewer on the parse-bound tree).
        match teddy_groups(words, 32).1 {
            Some(groups) => ScanSearch::Teddy(groups),
            None => ScanSearch::automaton(words),
        }
    }

    /// Every word's every place (overlapping search), for CPUs without SIMD.
    fn automaton(words: &[&'static str]) -> ScanSearch {
        let bare: Vec<&str> = words.iter().map(|w| split_word(w).0).collect();
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(bare)
            .expect("trigger words build an automaton");
        ScanSearch::Automaton(automaton)
    }
}

/// Stems the first pass searches for in place of every word that contains them: fewer words make
/// the SIMD search faster, and each stem is about as rare as its words on the benchmark corpus
/// (`benches/scan_speed.rs` prints how many files pass). The five spellings of each header name
/// share a stem per case; the rest are families of method and field names.
const STEMS: &[&str] = &[
    "vent-I",
    "vent-i",
    "VENT-I",
    "ession-I",
    "ession-i",
    "ESSION-I",
    "resources/",
    "client_supports_",
    "input_re",
    "tasks/",
    "ubscribeRequest",
];

/// The first pass's search. SIMD "Teddy" searchers over groups of up to 64 words, in alphabetical
/// order (words sharing first bytes share the searcher's buckets, so fewer false candidates): about
/// 2.5× one automaton or regex of all the words on the benchmark corpus (`benches/scan_speed.rs`);
/// where the CPU has no SIMD for it, one regex.
struct FirstPass {
    /// The words searched for (letters, stems), alphabetical (`teddy_groups`).
    words: Vec<&'static str>,
    search: Search,
}

enum Search {
    Teddy(Vec<Group>),
    /// Says only that a searched word is there (no `Anchor` check): a file may pass for nothing.
    Regex(regex::bytes::Regex),
}

/// A first pass's words, and its searchers once built (about 10 M instructions each).
struct LazyFirstPass {
    words: Vec<&'static str>,
    built: OnceLock<FirstPass>,
}

impl LazyFirstPass {
    fn new(words: Vec<&'static str>) -> LazyFirstPass {
        LazyFirstPass { words, built: OnceLock::new() }
    }

    fn get(&self) -> &FirstPass {
        self.built.get_or_init(|| FirstPass::new(&self.words))
    }
}

/// One SIMD searcher, and for each of its words (by pattern id) the trigger words around it.
struct Group {
    searcher: aho_corasick::packed::Searcher,
    anchors: Vec<Vec<Anchor>>,
}

/// Where a trigger word sits around a searched word it contains: a hit of the searched word is a
/// hit of the trigger word only if the whole word is there (`Mapping"` is not `"ping"`) and, for
/// `\b` words, starts an identifier (`SetServerCapabilities` is not `ServerCapabilities`).
struct Anchor {
    word: &'static str,
    offset: usize,
    word_start: bool,
    /// The trigger word's index in the searched list (for the scan: its pattern index).
    trigger: usize,
}

impl Anchor {
    fn found_at(&self, bytes: &[u8], hit: usize) -> bool {
        let Some(start) = hit.checked_sub(self.offset) else { return false };
        bytes[start..].starts_with(self.word.as_bytes()) && (!self.word_start || starts_identifier(bytes, start))
    }
}

impl Group {
    /// Whether a trigger word is in `bytes`. Searched words contain no other searched word, so at
    /// most one starts at any byte: resuming one byte after each unconfirmed hit sees them all.
    fn has_word(&self, bytes: &[u8]) -> bool {
        let mut from = 0;
        while let Some(m) = self.searcher.find_in(bytes, aho_corasick::Span::from(from..bytes.len())) {
            if self.anchors[m.pattern().as_usize()].iter().any(|a| a.found_at(bytes, m.start())) {
                return true;
            }
            from = m.start() + 1;
        }
        false
    }

    /// Every place of every trigger word in the scan's `hits.bytes`, as `has_word` sees them. A
    /// word already found is not checked again (`Hits::wants`): `mcp`, `tool` are everywhere in
    /// MCP code.
    fn find_all(&self, hits: &mut Hits) {
        let bytes = hits.bytes;
        let mut from = 0;
        while let Some(m) = self.searcher.find_in(bytes, aho_corasick::Span::from(from..bytes.len())) {
            for a in &self.anchors[m.pattern().as_usize()] {
                if hits.wants(a.trigger) && a.found_at(bytes, m.start()) {
                    hits.add(a.trigger, m.start() - a.offset);
                }
            }
            from = m.start() + 1;
        }
    }
}

impl FirstPass {
    /// `words` as the prefilter spells them (`\bWord` for word-start words).
    fn new(words: &[&'static str]) -> FirstPass {
        let (kept, teddy) = teddy_groups(words, 64);
        let search = match teddy {
            Some(groups) => Search::Teddy(groups),
            None => {
                let alternation: Vec<String> = kept.iter().map(|w| regex::escape(w)).collect();
                let regex = regex::bytes::RegexBuilder::new(&alternation.join("|"))
                    .unicode(false)
                    .size_limit(64 << 20)
                    .build()
                    .expect("trigger words build a regex");
                Search::Regex(regex)
            }
        };
        FirstPass { words: kept, search }
    }

    fn is_match(&self, bytes: &[u8]) -> bool {
        match &self.search {
            Search::Teddy(groups) => groups.iter().any(|g| g.has_word(bytes)),
            Search::Regex(regex) => regex.is_match(bytes),
        }
    }
}

/// The words a SIMD search looks for to find `words` (`\bWord` for word-start words), alphabetical,
/// and its searchers of at most `group` words each with their anchors (the trigger index of an
/// anchor is its word's index in `words`); no searchers where the CPU has no SIMD for them.
fn teddy_groups(words: &[&'static str], group: usize) -> (Vec<&'static str>, Option<Vec<Group>>) {
    let triggers: Vec<(&'static str, bool)> = words.iter().map(|w| split_word(w)).collect();
    // Only a word's letters are searched for: leading punctuation (`::Root>`, `"ping"`,
    // `-32001`) is everywhere in Rust and would make the SIMD search stop at every `::`. The
    // whole word is checked at each hit (`Anchor`).
    let mut searched: Vec<&'static str> = triggers
        .iter()
        .map(|&(w, _)| {
            let letters = w.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
            let letters = if letters.len() >= 4 { letters } else { w };
            STEMS.iter().find(|s| contains(letters, s)).copied().unwrap_or(letters)
        })
        .collect();
    // A word that contains another is found through it.
    searched.sort_by_key(|w| w.len());
    searched.dedup();
    let mut kept: Vec<&'static str> = Vec::new();
    for w in searched {
        if !kept.iter().any(|k| contains(w, k)) {
            kept.push(w);
        }
    }
    // Alphabetical: words sharing first bytes share the searcher's buckets, so fewer false
    // candidates. Words shorter than the searcher's 4-byte fingerprint (`mcp`) first: a group's
    // fingerprint is as short as its shortest word, so they make one group slower, not all.
    kept.sort_unstable_by_key(|w| (w.len().min(4), *w));
    let anchors_of = |searched: &str| -> Vec<Anchor> {
        let mut out: Vec<Anchor> = Vec::new();
        for (trigger, &(word, word_start)) in triggers.iter().enumerate() {
            for offset in positions(word, searched) {
                out.push(Anchor { word, offset, word_start, trigger });
            }
        }
        out
    };
    // Groups of equal size: a searcher's speed falls with its number of words.
    let size = kept.len().div_ceil(kept.len().div_ceil(group).max(1)).max(1);
    let teddy: Option<Vec<Group>> = kept
        .chunks(size)
        .map(|group| {
            let searcher = aho_corasick::packed::Config::new().builder().extend(group).build()?;
            Some(Group { searcher, anchors: group.iter().map(|w| anchors_of(w)).collect() })
        })
        .collect();
    (kept, teddy)
}

/// Where `part` starts in `word`, overlaps included. Byte by byte: these words are short, and
/// `str::match_indices` sets up a searcher per call (most of the first pass's build before).
fn positions<'a>(word: &'a str, part: &'a str) -> impl Iterator<Item = usize> + 'a {
    let (word, part) = (word.as_bytes(), part.as_bytes());
    (0..(word.len() + 1).saturating_sub(part.len())).filter(move |&at| word[at..].starts_with(part))
}

fn contains(word: &str, part: &str) -> bool {
    positions(word, part).next().is_some()
}

/// Whether an identifier may start at `at`: the byte before it (if any) is not a letter, digit or
/// `_`. What a `\b` trigger word needs where it is found.
fn starts_identifier(bytes: &[u8], at: usize) -> bool {
    at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_start_trigger_ignores_the_word_inside_an_identifier() {
        let prefilter = Prefilter::new(crate::rules::ALL, true);
        let active = |text: &str| prefilter.scan(text.as_bytes(), FileKind::Rust).active.len();
        // `listChanged` is marked `\b` by roots-list-changed.
        assert_eq!(active("fn on(e: Event) { e.playlistChanged(); }"), 0);
        assert!(active("let caps = json!({\"roots\": {\"listChanged\": true}});") > 0);
        assert!(active("listChanged") > 0);
    }

    #[test]
    fn an_mcp_only_word_needs_mcp_code_or_an_sdk_crate() {
        let prefilter = Prefilter::new(crate::rules::ALL, true);
        let names = |rules: &[&'static dyn Rule]| rules.iter().map(|r| r.meta().name).collect::<Vec<_>>();
        // TLS code: nothing of MCP in the text; only a crate with an SDK would make it count.
        let tls = prefilter.scan(b"fn hello(h: &Hello) -> u16 { h.client_version() }", FileKind::Rust);
        assert!(tls.active.is_empty());
        assert!(tls.may_need_parsing());
        assert_eq!(names(&tls.with_sdk), ["inferred-client-capabilities"]);
        // The same call beside an SDK import, or in a `#[tool]`, is MCP code.
        for text in
            ["use rust_mcp_sdk::McpServer; fn v(r: &R) { r.client_version(); }", "#[tool] fn v() { send(\"ping\") }"]
        {
            let scan = prefilter.scan(text.as_bytes(), FileKind::Rust);
            assert!(!scan.active.is_empty() && scan.with_sdk.is_empty(), "{text}");
        }
        // In JSON the words count as they are.
        assert!(!prefilter.scan(br#"{"method": "ping"}"#, FileKind::Json).active.is_empty());
    }

    /// The scan as it was before one SIMD search found the words and the protocol revisions
    /// both: an automaton's loop over every byte. The oracle of `scan_file`.
    fn dfa_of(prefilter: &Prefilter) -> aho_corasick::dfa::DFA {
        let bare: Vec<&str> = prefilter.words.iter().map(|w| split_word(w).0).collect();
        aho_corasick::dfa::Builder::new()
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .build(&bare)
            .expect("trigger words build an automaton")
    }

    fn scan_by_dfa(prefilter: &Prefilter, automaton: &aho_corasick::dfa::DFA, bytes: &[u8], kind: FileKind) -> Scan {
        use aho_corasick::Anchored;
        use aho_corasick::automaton::Automaton;
        let mut hit = vec![false; prefilter.meaning.len()];
        let aut = automaton;
        let mut state = aut.start_state(Anchored::No).expect("the DFA searches unanchored");
        for (at, &byte) in bytes.iter().enumerate() {
            state = aut.next_state(Anchored::No, state, byte);
            if !aut.is_special(state) {
                continue;
            }
            if aut.is_dead(state) {
                break;
            }
            for k in 0..aut.match_len(state) {
                let pattern = aut.match_pattern(state, k);
                let p = pattern.as_usize();
                if prefilter.meaning[p].word_start && !starts_identifier(bytes, at + 1 - aut.pattern_len(pattern)) {
                    continue;
                }
                hit[p] = true;
            }
        }
        // What the words found mean is the same code on both sides: the oracle checks the finding.
        prefilter.scan_from(&hit, kind)
    }

    /// `EraScanner::file_signals` as it was (leftmost non-overlapping matches of the revision
    /// words, the first of each kind outside comments): the oracle of `scan_file`'s signals.
    fn file_signals_before(automaton: &AhoCorasick, bytes: &[u8]) -> FileSignals {
        let words: Vec<&'static str> = MODERN_WORDS.iter().chain(LEGACY_WORDS).copied().collect();
        let mut found = FileSignals::default();
        for m in automaton.find_iter(bytes) {
            let word = words[m.pattern().as_usize()];
            let modern = MODERN_WORDS.contains(&word);
            let slot = if modern { &mut found.modern } else { &mut found.legacy };
            if slot.is_some() {
                continue;
            }
            let line_start = bytes[..m.start()].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            let before = String::from_utf8_lossy(&bytes[line_start..m.start()]);
            if ["//", "/*", "*", "#"].iter().any(|c| before.trim_start().starts_with(c)) {
                continue;
            }
            let line = bytes[..m.start()].iter().filter(|b| **b == b'\n').count() + 1;
            *slot = Some((line, word));
            if found.modern.is_some() && found.legacy.is_some() {
                break;
            }
        }
        found
    }

    /// Prefilters of several rule sets, each with the old automaton and with its scan's search
    /// forced to the no-SIMD automaton too.
    struct Oracle {
        cases: Vec<(Prefilter, aho_corasick::dfa::DFA)>,
        era: AhoCorasick,
    }

    impl Oracle {
        fn new() -> Oracle {
            let all: &[&'static dyn Rule] = crate::rules::ALL;
            let mut cases = Vec::new();
            for (rules, enabled, simd) in
                [(all, true, true), (all, false, true), (&all[all.len() / 2..], true, true), (all, true, false)]
            {
                let prefilter = Prefilter::new(rules, enabled);
                if !simd {
                    assert!(prefilter.scan_search.set(ScanSearch::automaton(&prefilter.words)).is_ok());
                }
                let dfa = dfa_of(&prefilter);
                cases.push((prefilter, dfa));
            }
            let era_words: Vec<&str> = MODERN_WORDS.iter().chain(LEGACY_WORDS).copied().collect();
            Oracle { cases, era: AhoCorasick::new(era_words).expect("era words build an automaton") }
        }

        fn check(&self, bytes: &[u8], kind: FileKind, label: &dyn std::fmt::Display) {
            let names = |rules: &[&'static dyn Rule]| rules.iter().map(|r| r.meta().name).collect::<Vec<_>>();
            let summary = |s: &Scan| (names(&s.active), names(&s.with_sdk), s.role);
            let era_before = file_signals_before(&self.era, bytes);
            for (i, (prefilter, dfa)) in self.cases.iter().enumerate() {
                let (scan, era) = prefilter.scan_file(bytes, kind);
                let before = scan_by_dfa(prefilter, dfa, bytes, kind);
                assert_eq!(summary(&scan), summary(&before), "case {i}, {kind:?}: {label}");
                assert_eq!(era, era_before, "case {i}: {label}");
            }
        }
    }

    /// Texts around every word: alone, at the start and end of a file, after identifier bytes (for
    /// `\b`), on comment lines, after CRLF and non-ASCII bytes, overlapping another word; short
    /// (the SIMD searchers' tail search) and long (their main loop).
    fn adversarial_texts(words: &[&'static str]) -> Vec<Vec<u8>> {
        let bare: Vec<&str> = words.iter().map(|w| split_word(w).0).collect();
        let pad = "fn f() { let x = 1; }\n".repeat(4);
        let mut texts: Vec<String> = Vec::new();
        for w in &bare {
            for around in [
                "{w}",
                "{w} x",
                "x {w}",
                "a{w}",
                "_{w}",
                "9{w}",
                "é{w}",
                "::{w}",
                "\"{w}\"",
                "// {w}",
                "  // x {w}",
                "/* {w}",
                " * {w}",
                "# {w}",
                "#[{w}]",
                "x // {w}",
                "\t{w}",
                "\u{a0}// {w}",
                "\u{2028}// {w}",
                "\u{ff}{w}",
                "a\r\n  {w}\r\n",
                "// c\r\n{w}",
                "{w}{w}",
                "x\n// {w}\n{w}\n",
            ] {
                let text = around.replace("{w}", w);
                texts.push(format!("{pad}{text}{pad}"));
                texts.push(format!("{text}{pad}"));
                texts.push(format!("{pad}{text}"));
                texts.push(text);
            }
        }
        // Overlapping pairs: a word's end is another's start.
        for a in &bare {
            for b in &bare {
                if let Some(k) = (1..a.len().min(b.len())).rev().find(|&k| a.ends_with(&b[..k])) {
                    texts.push(format!("{a}{}", &b[k..]));
                    texts.push(format!("{pad}{a}{}{pad}", &b[k..]));
                }
            }
        }
        // Pseudo-random mixes of words, their halves, separators and comment openers.
        let mut pieces: Vec<String> = bare.iter().map(|w| w.to_string()).collect();
        pieces.extend(bare.iter().map(|w| w[..w.len() / 2].to_string()));
        pieces.extend(bare.iter().map(|w| w[w.len() / 2..].to_string()));
        pieces.extend(["\n", "\r\n", " ", "_", "a", "// ", "/*", "* ", "# ", "é", "\t", "::", "\""].map(String::from));
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..40 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                text.push_str(&pieces[(seed >> 33) as usize % pieces.len()]);
            }
            texts.push(text);
        }
        texts.push(String::new());
        let mut texts: Vec<Vec<u8>> = texts.into_iter().map(String::into_bytes).collect();
        // Bytes that are not UTF-8 before a revision (the comment test reads the line lossily).
        for w in MODERN_WORDS.iter().chain(LEGACY_WORDS) {
            for before in [&b"\xff// "[..], b"\xff ", b"// \xc3", b"\xc3", b"\n\xe2\x80// "] {
                texts.push([before, w.as_bytes()].concat());
                texts.push([pad.as_bytes(), before, w.as_bytes(), pad.as_bytes()].concat());
            }
        }
        texts
    }

    #[test]
    fn the_scan_finds_what_the_automaton_and_the_era_scanner_found() {
        let oracle = Oracle::new();
        let words = oracle.cases[0].0.words.clone();
        for text in adversarial_texts(&words) {
            for kind in [FileKind::Rust, FileKind::Json] {
                oracle.check(&text, kind, &String::from_utf8_lossy(&text));
            }
        }
        // Every fixture, and with `MCP_LINT_SCAN_TREE=DIR` every file of a tree.
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let tree = std::env::var_os("MCP_LINT_SCAN_TREE").map_or(fixtures, std::path::PathBuf::from);
        let mut files = 0;
        for entry in ignore::WalkBuilder::new(tree).hidden(false).build().flatten() {
            // What the engine reads.
            if !entry.file_type().is_some_and(|t| t.is_file()) || !FileKind::is_scanned(entry.path()) {
                continue;
            }
            let Ok(bytes) = std::fs::read(entry.path()) else { continue };
            oracle.check(&bytes, FileKind::of(entry.path()), &entry.path().display());
            files += 1;
        }
        assert!(files > 10, "{files} files");
    }

    #[test]
    fn revision_words_never_overlap() {
        // So the old scanner's leftmost non-overlapping matches were every place of every revision
        // word, and the scan, which looks at every place, keeps the same first one.
        let words: Vec<&str> = MODERN_WORDS.iter().chain(LEGACY_WORDS).copied().collect();
        for a in &words {
            for b in &words {
                assert!(a == b || !a.contains(b), "{a} contains {b}");
                assert!((1..a.len().min(b.len())).all(|k| !a.ends_with(&b[..k])), "{a} overlaps {b}");
            }
        }
    }

    #[test]
    fn every_stem_stands_for_a_trigger_word() {
        let words: Vec<&str> = crate::rules::ALL
            .iter()
            .flat_map(|r| r.meta().triggers.iter().chain(r.meta().json_triggers))
            .map(|w| split_word(w).0)
            .collect();
        for stem in STEMS {
            assert!(words.iter().any(|w| w.contains(stem)), "no trigger word contains the stem {stem:?}");
        }
    }

    #[test]
    fn the_first_pass_lets_through_every_file_the_scan_activates_rules_in() {
        let prefilter = Prefilter::new(crate::rules::ALL, true);
        for rule in crate::rules::ALL {
            for word in rule.meta().triggers.iter().chain(rule.meta().json_triggers) {
                let text = format!("x {} y", split_word(word).0);
                assert!(prefilter.may_matter(text.as_bytes(), FileKind::Json), "{word}");
                let in_rust = format!("{text} json!");
                assert!(prefilter.may_matter(in_rust.as_bytes(), FileKind::Rust), "{word}");
            }
        }
        assert!(prefilter.may_matter(b"// mcp-lint: allow(removed-method) reason", FileKind::Rust));
        assert!(prefilter.may_matter(b"const V: &str = \"2025-06-18\";", FileKind::Rust));
        assert!(!prefilter.may_matter(b"fn main() { println!(\"hello\"); }", FileKind::Rust));
        // A searched word's hit counts only when the whole trigger word is there, `\b` honoured.
        assert!(!prefilter.may_matter(b"let key = \"Mapping\"; call(SetServerCapabilities, 0x32002);", FileKind::Rust));
        assert!(prefilter.may_matter(b"let key = \"Mapping\"; let m = \"ping\";", FileKind::Rust));
        // A JSON-only word lets a Rust file through only beside `json!`.
        assert!(!prefilter.may_matter(b"let m = \"method\";", FileKind::Rust));
        assert!(prefilter.may_matter(b"{\"method\": 1}", FileKind::Json));
    }
}
