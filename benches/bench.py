#!/usr/bin/env python3
"""Times mcp-lint against ripgrep and ast-grep on the same trees in one run and writes
benches/RESULTS.md. Called by benches/run.sh, which builds and installs what this needs."""

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench"
MCP_LINT = ROOT / "target" / "release" / "mcp-lint"
SYN_LOOP = ROOT / "target" / "release" / "examples" / "syn_parse_loop"
TRIGGERS = ROOT / "target" / "release" / "examples" / "bench_triggers"
# --quick: fewer runs, and no whole-corpus run without the prefilter (it takes minutes).
QUICK = "--quick" in sys.argv
RUNS = 3 if QUICK else 5
SLOW_RUNS = 1 if QUICK else 3
# The parse-bound runs are short (under a second) and a shared VM's noise is a large part of each:
# more of them, in turn with the bare loop, keep the ratio of medians steady.
PARSE_RUNS = 4 * RUNS + 1


def corpus(copies: int) -> Path:
    """The vendored crates plus the planted MCP servers, `copies` times (hard links: same bytes,
    distinct paths, so every tool reads every copy)."""
    base = WORK / "corpus-1x"
    if not base.exists():
        shutil.copytree(WORK / "vendor", base / "vendor", copy_function=os.link)
        shutil.copytree(ROOT / "fixtures", base / "planted")
    if copies == 1:
        return base
    tree = WORK / f"corpus-{copies}x"
    if not tree.exists():
        for i in range(copies):
            shutil.copytree(base, tree / f"copy{i}", copy_function=os.link)
    return tree


def rust_regex(word: str) -> str:
    """A trigger word as a regex for ripgrep (Rust regex syntax); `\\b` marks a word that counts
    only where an identifier starts, as mcp-lint's prefilter counts it."""
    start = word.startswith("\\b")
    body = re.sub(r"([\\.+*?()|\[\]{}^$#&\-~])", r"\\\1", word[2:] if start else word)
    # An ASCII word boundary: Unicode-aware `\\b` sends ripgrep to a slow engine (30x here).
    return ("(?-u:\\b)" if start else "") + body


def needs_parsing(words):
    """Whether mcp-lint must parse a Rust file, decided here independently of its prefilter: a
    rule's word, a JSON-only word in a file with a `json!` body, or an MCP-only word in a file
    that shows it is MCP code. (mcp-lint also parses a file with an MCP-only word when its crate
    depends on an MCP SDK, and one with a crate word when another file of its crate selects the
    word's rule; leaving those out keeps the tree to files it must parse.)"""
    def py(word):
        return ("(?<![A-Za-z0-9_])" + re.escape(word[2:])) if word.startswith("\\b") else re.escape(word)
    def alternation(kind):
        return re.compile("|".join(py(w) for k, w in words if k == kind))
    any_re, json_re, mcp_re, code_re = (alternation(k) for k in ("any", "json", "mcp", "mcp-code"))
    return lambda text: bool(
        any_re.search(text)
        or ("json!" in text and json_re.search(text))
        or (mcp_re.search(text) and code_re.search(text)))


def parse_tree(must_parse) -> Path:
    """A tree where every file must be parsed: the Rust files of the planted servers and of rmcp's
    own sources that contain a rule's word (with the manifests around them, for crate context)."""
    tree = WORK / "parse-tree"
    if tree.exists():
        shutil.rmtree(tree)
    sources = [(ROOT / "fixtures", tree / "planted")]
    sources += [(d, tree / d.name) for d in sorted((WORK / "vendor").iterdir()) if d.name.startswith("rmcp")]
    for src, dst in sources:
        for path in sorted(src.rglob("*")):
            keep = path.name in ("Cargo.toml", "Cargo.lock") or (
                path.suffix == ".rs" and must_parse(path.read_text(errors="replace")))
            if path.is_file() and keep:
                (dst / path.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dst / path.relative_to(src))
    return tree


def instructions(cmd) -> int:
    """Instructions the command executes (valgrind's callgrind, no cache simulation): unlike wall
    time, the same from run to run, so a ratio of two of them does not drift with the machine."""
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *map(str, cmd)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def timed(cmd, runs):
    """Wall times of `runs` runs after one warm-up (warm page cache)."""
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def timed_pair(cmd_a, cmd_b, runs):
    """`timed` for two commands run in turn, so a machine that slows down mid-run (a shared VM)
    slows both sides of a ratio alike."""
    for cmd in (cmd_a, cmd_b):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times_a, times_b = [], []
    for _ in range(runs):
        for cmd, times in ((cmd_a, times_a), (cmd_b, times_b)):
            start = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
    return times_a, times_b


def peak_mib(cmd):
    out = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True).stderr
    for line in out.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1]) / 1024
    return float("nan")


def fmt(times):
    return f"{statistics.median(times):.3f} s ({min(times):.3f}–{max(times):.3f})"


def main():
    lines = subprocess.run([TRIGGERS], capture_output=True, text=True, check=True).stdout.splitlines()
    words = sorted({tuple(line.split("\t")[1:3]) for line in lines})
    # ripgrep gets the rules' words; the MCP-code words only qualify some of them.
    rule_words = sorted({w for kind, w in words if kind != "mcp-code"})
    rg_args = ["rg", "-c", "-j2", *[a for w in rule_words for a in ("-e", rust_regex(w))],
               "-g", "*.rs", "-g", "*.json", "-g", "*.jsonc", "-g", "*.jsonl"]
    sg = ["ast-grep", "scan", "--threads", "2", "-c", str(ROOT / "benches/ast-grep/sgconfig.yml")]
    lint = [str(MCP_LINT), "check", "--format", "json", "--threads", "2"]

    rows = []
    ratios = {}
    scaling = {}
    c1 = corpus(1)
    n_files = sum(1 for _ in c1.rglob("*.rs"))
    size_mb = sum(p.stat().st_size for p in c1.rglob("*.rs")) / 1e6
    for copies in (1, 2, 4):
        tree = corpus(copies)
        t_lint, t_rg = timed_pair([*lint, tree], [*rg_args, str(tree)], RUNS)
        lint_peak = peak_mib([*lint, tree])
        rows.append((f"{copies}×", "mcp-lint check (all rules)", fmt(t_lint), f"{lint_peak:.0f}"))
        rows.append((f"{copies}×", "ripgrep, same trigger words", fmt(t_rg), f"{peak_mib([*rg_args, tree]):.0f}"))
        scaling[copies] = statistics.median(t_lint)
        if copies == 1:
            if not QUICK:
                # Every file parsed by every rule: minutes on this corpus, so only in full runs.
                t_nopre = timed([*lint, "--no-prefilter", tree], SLOW_RUNS)
                rows.append(("1×", "mcp-lint check --no-prefilter", fmt(t_nopre), f"{peak_mib([*lint, '--no-prefilter', tree]):.0f}"))
            # In turn with ast-grep too, like ripgrep: each ratio from runs side by side in time.
            t_lint_sg, t_sg = timed_pair([*lint, tree], [*sg, str(tree)], SLOW_RUNS)
            rows.append(("1×", "mcp-lint check (all rules), in turn with ast-grep", fmt(t_lint_sg), f"{lint_peak:.0f}"))
            rows.append(("1×", "ast-grep scan, equivalent rules", fmt(t_sg), f"{peak_mib([*sg, str(tree)]):.0f}"))
            ratios["mcp-lint / ripgrep"] = statistics.median(t_lint) / statistics.median(t_rg)
            ratios["ast-grep / mcp-lint"] = statistics.median(t_sg) / statistics.median(t_lint_sg)
            ratios["peak MiB, mcp-lint"] = lint_peak

    pt = parse_tree(needs_parsing(words))
    pt_files = sum(1 for _ in pt.rglob("*.rs"))
    # Proof that the tree is parse-bound: mcp-lint itself says it parsed every file.
    summary = subprocess.run([MCP_LINT, "check", "--threads", "1", pt], capture_output=True, text=True).stdout
    parsed = re.search(r"\((\d+) files checked, (\d+) parsed\)", summary)
    assert parsed and int(parsed.group(2)) == pt_files, f"not every file of {pt} was parsed: {parsed and parsed.group(0)}"
    parse_rows = []
    for threads in (1, 2):
        t_engine, t_syn = timed_pair(
            [str(MCP_LINT), "check", "--format", "json", "--threads", str(threads), pt], [SYN_LOOP, pt, str(threads)],
            PARSE_RUNS)
        parse_rows.append((threads, fmt(t_engine), fmt(t_syn), statistics.median(t_engine) / statistics.median(t_syn)))
        scaling[f"engine-{threads}t"] = statistics.median(t_engine)
    ins_engine = instructions([MCP_LINT, "check", "--format", "json", "--threads", "1", pt])
    ins_syn = instructions([SYN_LOOP, pt, "1"])
    # For reference, not a target: every rule on every file, as if no rule had trigger words.
    t_all_rules = timed([str(MCP_LINT), "check", "--format", "json", "--no-prefilter", "--threads", "1", pt], RUNS)
    ratios["4× / 1× time"] = scaling[4] / scaling[1]
    ratios["2× / 1× time"] = scaling[2] / scaling[1]
    ratios["engine / syn loop, 1 thread"] = parse_rows[0][3]
    ratios["engine 1 thread / 2 threads"] = scaling["engine-1t"] / scaling["engine-2t"]

    targets = [
        ("whole corpus: mcp-lint ≤ 2× ripgrep", ratios["mcp-lint / ripgrep"] <= 2.0, f"{ratios['mcp-lint / ripgrep']:.2f}×"),
        ("whole corpus: ≥ 50× faster than ast-grep", ratios["ast-grep / mcp-lint"] >= 50, f"{ratios['ast-grep / mcp-lint']:.0f}×"),
        ("peak memory ≤ 100 MB", ratios["peak MiB, mcp-lint"] <= 100, f"{ratios['peak MiB, mcp-lint']:.0f} MiB"),
        ("linear: 4× corpus ≤ 4.4× time", ratios["4× / 1× time"] <= 4.4, f"{ratios['4× / 1× time']:.2f}×"),
        ("parse-bound: ≤ 1.3× bare syn loop, 1 thread", ratios["engine / syn loop, 1 thread"] <= 1.3, f"{ratios['engine / syn loop, 1 thread']:.2f}×"),
        ("parse-bound: ≥ 1.7× faster on 2 threads", ratios["engine 1 thread / 2 threads"] >= 1.7, f"{ratios['engine 1 thread / 2 threads']:.2f}×"),
        # The crate model's budget (issue #16): what the model may cost on top of the rules.
        ("crate model: whole corpus ≤ 1.2× ripgrep", ratios["mcp-lint / ripgrep"] <= 1.2, f"{ratios['mcp-lint / ripgrep']:.2f}×"),
        ("crate model: parse-bound ≤ 1.35× bare syn loop in instructions", ins_engine / ins_syn <= 1.35, f"{ins_engine / ins_syn:.2f}×"),
    ]

    cpu = subprocess.run(["sh", "-c", "nproc; grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.split("\n")
    out = [
        "# Benchmark results",
        "",
        f"Written by `benches/run.sh`{' --quick' if QUICK else ''} on {time.strftime('%Y-%m-%d')}; {cpu[0].strip()} cores,{cpu[1]}.",
        f"Corpus: the crates pinned by `benches/corpus/Cargo.lock`, vendored ({n_files} `.rs` files, {size_mb:.0f} MB of Rust at 1×), "
        "plus the planted MCP servers of `fixtures/`. Warm cache; wall time median (min–max) of "
        f"{RUNS} runs ({SLOW_RUNS} for the slow ones) after a warm-up, mcp-lint run in turn with each peer (each ratio divides "
        "the medians of such a pair of series); peak RSS "
        "from `/usr/bin/time -v`. All tools on 2 threads. ripgrep searches every rule's trigger word as mcp-lint's "
        "prefilter does (a regex alternation; words marked `\\b` only where an identifier starts).",
        "",
        "| corpus | command | wall time | peak MiB |",
        "|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows],
        "",
        f"Parse-bound tree ({pt_files} `.rs` files: those of the planted servers and of rmcp's own sources that "
        "contain a rule's word, so mcp-lint parses every one, which the harness checks). Both sides read and parse "
        "every file with span locations, with the same allocator (mimalloc); wall time of the whole process, "
        f"median (min–max) of {PARSE_RUNS} runs in turn:",
        "",
        "| threads | mcp-lint check (all rules) | bare `syn::parse_file` loop | ratio |",
        "|---|---|---|---|",
        *[f"| {t} | {a} | {b} | {r:.2f}× |" for t, a, b, r in parse_rows],
        "",
        f"Instructions executed on one thread (valgrind's callgrind, the same from run to run where wall time drifts): "
        f"mcp-lint {ins_engine / 1e9:.2f} G, the bare loop {ins_syn / 1e9:.2f} G: **{ins_engine / ins_syn:.2f}×**.",
        "",
        f"For reference: with `--no-prefilter` (every rule runs on every file, as if no rule had trigger words) the same "
        f"tree takes {fmt(t_all_rules)} on one thread.",
        "",
        "| target | met | measured |",
        "|---|---|---|",
        *[f"| {name} | {'yes' if ok else '**no**'} | {val} |" for name, ok, val in targets],
        "",
    ]
    (ROOT / "benches" / "RESULTS.md").write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
