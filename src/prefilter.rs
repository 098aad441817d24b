//! One pass over a file's bytes decides whether it needs parsing at all, which rules can fire in it,
//! and which side (server or client) it is on. Built once per run from the enabled rules' trigger
//! words and the role words.

use aho_corasick::AhoCorasick;

use crate::context::{CLIENT_WORDS, Role, SERVER_WORDS};
use crate::rules::Rule;

pub struct Prefilter {
    automaton: AhoCorasick,
    /// For each pattern: which rules (indexes into `rules`) it triggers, or a role word.
    meaning: Vec<Meaning>,
    rules: Vec<&'static dyn Rule>,
    /// When off, every rule is active for every file (for measuring, and for the test that proves
    /// trigger words never hide a finding).
    enabled: bool,
}

#[derive(Clone)]
enum Meaning {
    Triggers(Vec<usize>),
    Server,
    Client,
}

/// What the prefilter found in one file.
pub struct Scan {
    /// The rules that can fire in the file; empty means the file need not be parsed.
    pub active: Vec<&'static dyn Rule>,
    pub role: Role,
}

impl Prefilter {
    pub fn new(rules: &[&'static dyn Rule], enabled: bool) -> Prefilter {
        let mut words: Vec<&'static str> = Vec::new();
        let mut meaning: Vec<Meaning> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            for &w in rule.meta().triggers {
                match words.iter().position(|x| *x == w) {
                    Some(p) => {
                        if let Meaning::Triggers(list) = &mut meaning[p] {
                            list.push(i);
                        }
                    }
                    None => {
                        words.push(w);
                        meaning.push(Meaning::Triggers(vec![i]));
                    }
                }
            }
        }
        for &w in SERVER_WORDS {
            words.push(w);
            meaning.push(Meaning::Server);
        }
        for &w in CLIENT_WORDS {
            words.push(w);
            meaning.push(Meaning::Client);
        }
        let automaton = AhoCorasick::new(&words).expect("trigger words build an automaton");
        Prefilter { automaton, meaning, rules: rules.to_vec(), enabled }
    }

    pub fn scan(&self, bytes: &[u8]) -> Scan {
        let mut hit = vec![false; self.meaning.len()];
        // Overlapping search: a word inside another (`peer_info` in `set_peer_info`) still counts.
        for m in self.automaton.find_overlapping_iter(bytes) {
            hit[m.pattern().as_usize()] = true;
        }
        let mut active_idx = vec![!self.enabled; self.rules.len()];
        let (mut server, mut client) = (false, false);
        for (p, meaning) in self.meaning.iter().enumerate() {
            if !hit[p] {
                continue;
            }
            match meaning {
                Meaning::Triggers(list) => list.iter().for_each(|&i| active_idx[i] = true),
                Meaning::Server => server = true,
                Meaning::Client => client = true,
            }
        }
        let active = self.rules.iter().zip(active_idx).filter(|(_, on)| *on).map(|(r, _)| *r).collect();
        Scan { active, role: Role::from_words(server, client) }
    }
}
