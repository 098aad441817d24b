//! Prints every enabled rule's trigger words, one per line as `rule<TAB>kind<TAB>word` (`kind` is
//! `any` or `json`): the benchmark gives ripgrep the same words as an equivalent search, and the
//! list shows which words make files expensive.

fn main() {
    for rule in mcp_lint::rules::ALL {
        let meta = rule.meta();
        for w in meta.triggers {
            println!("{}\tany\t{w}", meta.name);
        }
        for w in meta.json_triggers {
            println!("{}\tjson\t{w}", meta.name);
        }
    }
}
