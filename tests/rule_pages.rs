//! Every rule's page (`rules/<rule>.md`) is the user's documentation, so its examples must be true:
//! the failing example fires that rule and the migrated (for `parse-error`, fixed) example fires
//! nothing.

use std::path::Path;

use mcp_lint::engine::check_text;
use mcp_lint::rules;

/// The first fenced code block after a heading that starts with `heading`: (extension, code).
fn example(page: &str, heading: &str) -> Option<(String, String)> {
    let start = page.lines().position(|l| l.starts_with("## ") && l[3..].starts_with(heading))?;
    let mut lines = page.lines().skip(start + 1).skip_while(|l| !l.starts_with("```"));
    let fence = lines.next()?;
    let lang = fence.trim_start_matches('`').trim();
    let ext = match lang {
        "rust" | "rs" => "rs",
        "json" => "json",
        "jsonc" => "jsonc",
        "jsonl" => "jsonl",
        other => panic!("unsupported example language `{other}`"),
    };
    let code: Vec<&str> = lines.take_while(|l| !l.starts_with("```")).collect();
    Some((ext.to_owned(), code.join("\n") + "\n"))
}

#[test]
fn rule_pages_examples_are_true() {
    // `parse-error` and `unused-suppression` are pseudo-rules, but their pages have examples like a rule's.
    for meta in rules::all_meta() {
        let page = meta.doc;
        assert!(page.starts_with(&format!("# {}", meta.name)), "{}: page must start with `# {}`", meta.name, meta.name);
        // SARIF's `fullDescription` (which GitHub requires) is the paragraph after the title.
        let intro = page.lines().skip(1).find(|l| !l.trim().is_empty()).unwrap_or("");
        assert!(!intro.is_empty() && !intro.starts_with('#'), "{}: page needs a paragraph after its title", meta.name);
        let (ext, failing) =
            example(page, "Failing example").unwrap_or_else(|| panic!("{}: no failing example", meta.name));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("example.{ext}"));
        let found = check_text(&path, failing.clone());
        assert!(
            found.iter().any(|d| d.rule == meta.name),
            "{}: the failing example does not fire the rule; found {:?}",
            meta.name,
            found.iter().map(|d| d.rule).collect::<Vec<_>>()
        );
        assert!(
            found.iter().all(|d| d.rule == meta.name),
            "{}: the failing example fires other rules too: {:?}",
            meta.name,
            found.iter().map(|d| (d.rule, &d.message)).collect::<Vec<_>>()
        );
        // A syntax error is fixed, not migrated: `parse-error`'s page calls its second example so.
        let second = if meta.name == rules::PARSE_ERROR.name { "Fixed example" } else { "Migrated example" };
        let (ext, migrated) = example(page, second).unwrap_or_else(|| panic!("{}: no `{second}` section", meta.name));
        let path = dir.path().join(format!("migrated.{ext}"));
        let found = check_text(&path, migrated);
        assert!(
            found.is_empty(),
            "{}: the migrated example fires {:?}",
            meta.name,
            found.iter().map(|d| (d.rule, &d.message)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn every_page_is_embedded_and_listed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".md").to_owned())
        .collect();
    pages.sort();
    let mut names: Vec<String> = rules::all_meta().map(|m| m.name.to_owned()).collect();
    names.sort();
    assert_eq!(pages, names, "every rule has one page and every page is a rule");
}
