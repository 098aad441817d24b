"""Writes the ecosystem check's SUMMARY.md and findings.tsv from mcp-lint's JSON reports.

Usage: summarize.py CRATES_TXT WORK_DIR (run by benches/ecosystem/run.sh). The verdicts a reader gave each
finding live in verdicts.tsv beside this file, keyed by crate, place and rule, so they survive reruns; a
finding without one shows as `unjudged`.
"""

import collections
import json
import pathlib
import sys
import tomllib

HERE = pathlib.Path(__file__).parent

# Crates whose presence in Cargo.lock names the MCP SDK a crate is written against.
SDK_PACKAGES = [
    "rmcp", "rust-mcp-sdk", "pmcp", "mcp-attr", "tower-mcp", "turbomcp", "turbomcp-server",
    "turul-mcp-server", "pulseengine-mcp-server", "mcp-sdk-rs", "agent-client-protocol",
]


def pinned_crates(crates_txt):
    for line in pathlib.Path(crates_txt).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split()[:2]
            yield name, version


def sdk_of(src, name):
    """The SDKs (with resolved versions) the crate's lock file holds, the crate itself when it is one."""
    lock = src / "Cargo.lock"
    found = []
    if lock.exists():
        for package in tomllib.loads(lock.read_text()).get("package", []):
            if package["name"] in SDK_PACKAGES and package["name"] != name:
                found.append(f"{package['name']} {package['version']}")
    if name in SDK_PACKAGES or name.startswith(("turbomcp", "turul-mcp", "pulseengine-mcp")):
        found.insert(0, "(is one)")
    return ", ".join(sorted(set(found), key=found.index)) or "none (hand-rolled)"


def is_test_path(place):
    path = place.rsplit(":", 2)[0]
    return path.startswith(("tests/", "benches/", "examples/", "testdata/")) or path.endswith(
        ("_tests.rs", "_test.rs", "/tests.rs")
    )


def load_verdicts():
    verdicts = {}
    path = HERE / "verdicts.tsv"
    if path.exists():
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                key_crate, place, rule, verdict, note = (line.split("\t") + [""] * 5)[:5]
                verdicts[(key_crate, place, rule)] = (verdict, note)
    return verdicts


def main(crates_txt, work):
    work = pathlib.Path(work)
    verdicts = load_verdicts()
    rows, findings = [], []
    for name, version in pinned_crates(crates_txt):
        tag = f"{name}@{version}"
        src = work / "src" / f"{name}-{version}"
        report = json.loads((work / "json" / f"{name}-{version}.json").read_text())
        eras = sorted({f"{f['era']['assumed']} ({f['era']['reason']})" for f in report if f.get("era")})
        per_rule = collections.Counter(f["rule"] for f in report)
        files = sum(1 for _ in src.rglob("*.rs"))
        rows.append((tag, name, version, sdk_of(src, name), "; ".join(eras) or "—", files, per_rule))
        for f in report:
            path = f["path"].split("/", 1)[1]
            start = f["range"]["start"]
            place = f"{path}:{start['line']}:{start['column']}"
            verdict, note = verdicts.get((tag, place, f["rule"]), ("unjudged", ""))
            findings.append((tag, place, f["rule"], f["severity"], f["message"].splitlines()[0], verdict, note))
    findings.sort()

    with open(HERE / "findings.tsv", "w") as out:
        out.write("crate\tplace\trule\tseverity\tverdict\tmessage\n")
        for tag, place, rule, severity, message, verdict, _ in findings:
            out.write(f"{tag}\t{place}\t{rule}\t{severity}\t{verdict}\t{message}\n")

    judged = collections.Counter(f[5] for f in findings)
    rules = collections.Counter(f[2] for f in findings)
    lines = [
        "# Ecosystem check",
        "",
        "Written by `benches/ecosystem/run.sh` (do not edit by hand; verdicts live in `verdicts.tsv`, misses",
        "in `MISSES.md`): `mcp-lint check --format json` over each crate pinned in `crates.txt`, as published.",
        "",
        f"{len(rows)} crates, {sum(r[5] for r in rows)} Rust files, {len(findings)} findings: "
        + ", ".join(f"{judged[v]} {v}" for v in ("true", "false", "unjudged") if judged[v]) + ".",
        "",
        "## Crates",
        "",
        "The era is the one mcp-lint assumed, as its findings report it (— where a crate has no finding).",
        "",
        "| crate | version | SDK (Cargo.lock) | era assumed | .rs files | findings |",
        "|---|---|---|---|---|---|",
    ]
    for tag, name, version, sdk, era, files, per_rule in rows:
        counts = ", ".join(f"{rule} {n}" for rule, n in sorted(per_rule.items())) or "none"
        lines.append(f"| {name} | {version} | {sdk} | {era} | {files} | {counts} |")
    lines += ["", "## Per rule", "", "| rule | findings | true | false |", "|---|---|---|---|"]
    for rule, n in sorted(rules.items()):
        true = sum(1 for f in findings if f[2] == rule and f[5] == "true")
        false = sum(1 for f in findings if f[2] == rule and f[5] == "false")
        lines.append(f"| {rule} | {n} | {true} | {false} |")
    reasons = collections.Counter((f[2], f[6]) for f in findings if f[5] == "false")
    lines += ["", "## False positives by reason", "", "| rule | reason | findings |", "|---|---|---|"]
    for (rule, note), n in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"| {rule} | {note} | {n} |")
    lines += [
        "",
        "A verdict says whether the code at that place does what the message says: `true` when it sends, handles,",
        "declares, mints or reads what the rule names (also in tests, and also where a dual-era SDK keeps it on",
        "purpose for legacy clients: mcp-lint reports those as warnings); `false` when it does not (it names the",
        "method only to reject, list, redact or assert on it, or the request goes the other way).",
        f"Of the true findings, {sum(1 for f in findings if f[5] == 'true' and is_test_path(f[1]))} are in test, example or",
        "benchmark files, many of them negative tests that send a removed method or header to check that it is refused:",
        "accurate, but noise to a maintainer.",
    ]
    lines += ["", "## Findings", "", "`crate@version path:line:col rule — message` then the verdict (true or false positive).", ""]
    for tag, place, rule, _, message, verdict, note in findings:
        lines.append(f"- `{tag} {place}` {rule} — {message} — **{verdict}**" + (f": {note}" if note else ""))
    (HERE / "SUMMARY.md").write_text("\n".join(lines) + "\n")
    print(f"ecosystem: {len(rows)} crates, {len(findings)} findings ({dict(judged)}); wrote benches/ecosystem/SUMMARY.md")


if __name__ == "__main__":
    main(*sys.argv[1:])
