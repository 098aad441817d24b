//! One pass over a file's bytes decides whether it needs parsing at all, which rules can fire in it,
//! and which side (server or client) it is on. Built once per run from the enabled rules' trigger
//! words and the role words.

use aho_corasick::AhoCorasick;

use crate::context::{CLIENT_WORDS, Role, SERVER_WORDS};
use crate::rules::Rule;
use crate::source::FileKind;

pub struct Prefilter {
    automaton: AhoCorasick,
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
    server: bool,
    client: bool,
    /// The `json!` marker itself.
    json_macro: bool,
}

/// What the prefilter found in one file.
pub struct Scan {
    /// The rules that can fire in the file; empty means the file need not be parsed.
    pub active: Vec<&'static dyn Rule>,
    pub role: Role,
}

/// How a `json!` body shows in a Rust file's bytes.
const JSON_MACRO: &str = "json!";

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
        let mut plan: Vec<(usize, usize, bool)> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for &w in rule.meta().triggers {
                plan.push((entry(w), i, false));
            }
            for &w in rule.meta().json_triggers {
                plan.push((entry(w), i, true));
            }
        }
        let server: Vec<usize> = SERVER_WORDS.iter().map(|w| entry(w)).collect();
        let client: Vec<usize> = CLIENT_WORDS.iter().map(|w| entry(w)).collect();
        let json_macro = entry(JSON_MACRO);
        for (p, i, json_only) in plan {
            if json_only { meaning[p].json_rules.push(i) } else { meaning[p].rules.push(i) }
        }
        server.into_iter().for_each(|p| meaning[p].server = true);
        client.into_iter().for_each(|p| meaning[p].client = true);
        meaning[json_macro].json_macro = true;
        let automaton = AhoCorasick::new(&words).expect("trigger words build an automaton");
        Prefilter { automaton, meaning, rules: rules.to_vec(), enabled }
    }

    pub fn scan(&self, bytes: &[u8], kind: FileKind) -> Scan {
        let mut hit = vec![false; self.meaning.len()];
        // Overlapping search: a word inside another (`peer_info` in `set_peer_info`) still counts.
        for m in self.automaton.find_overlapping_iter(bytes) {
            hit[m.pattern().as_usize()] = true;
        }
        let reads_json = kind != FileKind::Rust || self.meaning.iter().zip(&hit).any(|(m, h)| *h && m.json_macro);
        let mut active_idx = vec![!self.enabled; self.rules.len()];
        let (mut server, mut client) = (false, false);
        for (meaning, _) in self.meaning.iter().zip(&hit).filter(|(_, h)| **h) {
            meaning.rules.iter().for_each(|&i| active_idx[i] = true);
            if reads_json {
                meaning.json_rules.iter().for_each(|&i| active_idx[i] = true);
            }
            server |= meaning.server;
            client |= meaning.client;
        }
        let active = self.rules.iter().zip(active_idx).filter(|(_, on)| *on).map(|(r, _)| *r).collect();
        Scan { active, role: Role::from_words(server, client) }
    }
}
