#!/usr/bin/env python3
"""The PCT share of the default search, measured: time to the first bug of
`reach-native ./prog` with and without the share (--no-random-share) on
programs whose bug needs a preemption or two among 10-20 threads with long
runs of independent steps, with one and two jobs (medians over seeds); then,
with one job, how the share's size (--random-share-every N) trades time to
those bugs against the time a complete search takes (programs of
benches/peers without a bug, --ignore-races). Rewrites the section "The PCT
share of the default search" of BENCHMARKS.md unless --no-write is given.

Usage: scripts/share-bench.py [--seeds N] [--max-time SECS] [--reps N]
                              [--every "2 4 8 16"] [--no-write]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release")
WORK = os.path.join(ROOT, "target", "share-bench")
HEADING = "## The PCT share of the default search"

# (label, source, reach-cc flags, program arguments)
BUGGY = [
    ("late_auditor", "c-examples/late_auditor.c", [], []),
    ("late_auditor 19 20", "c-examples/late_auditor.c", [], ["19", "20"]),
    ("checker_overtakes_setters", "c-examples/checker_overtakes_setters.c", [], []),
    ("quota_gate", "c-examples/quota_gate.c", [], []),
]
# Bug-free programs the default search completes (races ignored).
COMPLETE = [
    ("indexer(15)", "benches/peers/indexer.c", ["-DN=15"]),
    ("fib_bench(4)", "benches/peers/fib_bench.c", ["-DN=4"]),
    ("casrot(9)", "benches/peers/casrot.c", ["-DN=9"]),
    ("readers(13)", "benches/peers/readers.c", ["-DN=13"]),
]
# How to read the tables (their numbers vary with the machine's load; what
# this says does not).
READING = """Reading it: optimal DPOR alone finds none of the first three bugs within
the time limit (the auditor and the checker must run before workers the
depth-first order reverses one at a time, from the last); the share finds
each in every run, and the systematic search still finds first what it
reaches early (`quota_gate`, execution 4). Time to a share's bug grows
about with N + 1, since one execution in N + 1 is PCT; with two jobs
each worker runs its own share, so it comes about twice as fast. A complete
search runs N times fewer PCT executions than systematic ones, each about
as dear as a systematic one or cheaper (as long, but with no analysis
after it), so it costs up to about 1/N more: at N = 4 under the noise of
this machine on indexer and readers, about a fifth on casrot and
fib_bench, whose executions are the cheapest. N = 4 (`DEFAULT_EVERY`)
keeps the auditor within seconds with two jobs and a complete search
within a quarter more time; 2 halves
the time to those bugs for up to half more time on complete searches, 8
and 16 miss some within the limit."""

# The bug-finding programs of the size sweep.
SWEPT = ["late_auditor", "late_auditor 19 20", "checker_overtakes_setters"]


def build(source, flags, name):
    exe = os.path.join(WORK, name.replace(" ", "_").replace("(", "_").replace(")", ""))
    src = os.path.join(ROOT, source)
    if not (os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(src)):
        opt = "-O0" if source.startswith("benches/") else "-O1"
        subprocess.run([os.path.join(BIN, "reach-cc"), opt, "-g", *flags, src, "-o", exe],
                       check=True)
    return exe


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(exe, args, options):
    """One run; its JSON report, with the CPU seconds of the run's whole
    process tree (driver, fork servers, executions) as `cpu`."""
    before = cpu_of_children()
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        report = os.path.join(tmp, "r.json")
        command = [os.path.join(BIN, "reach-native"), "--quiet", "--no-shorten",
                   "--json", report, "--schedule-out", os.path.join(tmp, "r.schedule"),
                   *options, exe, *args]
        subprocess.run(command, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(report) as f:
            result = json.load(f)
    result["cpu"] = cpu_of_children() - before
    return result


def shared(report):
    return (report.get("random_share") or {}).get("executions", 0)


def by_share(report):
    return "PCT share" in (report.get("found_by") or "")


def median(values):
    return statistics.median(values) if values else float("nan")


def time_to_bug(exe, args, options, seeds, max_time):
    """Runs of the default search with `options` over `seeds`: the cell text
    (median / max seconds to the bug, median executions, who found it)."""
    found, secs, execs, shares, by = 0, [], [], [], 0
    for seed in seeds:
        r = run(exe, args, [*options, "--max-time", str(max_time), *(["--seed", str(seed)] if seed is not None else [])])
        if r["bug"]:
            found += 1
            secs.append(r["seconds"])
            execs.append(r["executions"])
            shares.append(shared(r))
            by += by_share(r)
    n = len(seeds)
    if not found:
        return f"- (0/{n} within {max_time:g} s)", None
    cell = f"{median(secs):.2f} / {max(secs):.2f} s; {median(execs):g} + {median(shares):g}"
    if found < n:
        cell += f"; {n - found}/{n} missed"
    if any(shares) or by:
        cell += f"; share {by}/{found}"
    return cell, median(secs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--max-time", type=float, default=30)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--every", default="2 4 8 16")
    parser.add_argument("--no-write", action="store_true")
    opts = parser.parse_args()
    os.makedirs(WORK, exist_ok=True)
    seeds = list(range(1, opts.seeds + 1))
    every = [int(n) for n in opts.every.split()]
    load = open("/proc/loadavg").read().split()[0]
    out = [HEADING, ""]
    out.append(
        f"`scripts/share-bench.py --seeds {opts.seeds} --max-time {opts.max_time:g} "
        f"--reps {opts.reps} --every \"{opts.every}\"` on {os.cpu_count()} cores "
        f"(load average {load} at the start), `--no-shorten`.")
    out.append("")
    out.append("### Time to the first bug of `reach-native ./prog`")
    out.append("")
    out.append(
        "Each cell: seconds to the bug, median / max over the seeds (without the share: one run, "
        "seed irrelevant), then the median executions of the systematic search + of the PCT "
        "share, and for how many of the runs the share found the bug.")
    out.append("")
    out.append("| program | threads | jobs | without the share (`--no-random-share`) | with the share (default, one in 5) |")
    out.append("|---|---|---|---|---|")
    exes = {}
    for label, source, flags, args in BUGGY:
        exes[label] = (build(source, flags, label), args)
    for label, source, flags, args in BUGGY:
        exe, args = exes[label]
        threads = {"late_auditor": 16, "late_auditor 19 20": 21,
                   "checker_overtakes_setters": 18, "quota_gate": 13}.get(label, "?")
        for jobs in ["1", "2"]:
            base = ["--jobs", jobs]
            without, _ = time_to_bug(exe, args, [*base, "--no-random-share"], [None], opts.max_time)
            with_share, _ = time_to_bug(exe, args, base, seeds, opts.max_time)
            out.append(f"| `{label}` | {threads} | {jobs} | {without} | {with_share} |")
            print(out[-1], file=sys.stderr)
    out.append("")
    out.append("### The share's size, one job")
    out.append("")
    out.append(
        "`--random-share-every N`: one PCT execution after every N systematic ones. Time to "
        "the bug: median seconds over the seeds. A complete search (no bug, `--ignore-races`): "
        f"CPU seconds of the whole run (driver, fork server, executions), median of {opts.reps} "
        "rounds, each round running every N once and the search without the share, and in "
        "brackets the median ratio, round by round, to the search without the share (wall "
        "times on a shared machine vary more than the share costs).")
    out.append("")
    header = "| N | " + " | ".join(f"`{p}` to the bug" for p in SWEPT) + " | " + \
        " | ".join(f"{p} complete" for p, _, _ in COMPLETE) + " |"
    out.append(header)
    out.append("|" + "---|" * (1 + len(SWEPT) + len(COMPLETE)))
    complete_exes = [(p, build(s, f, p)) for p, s, f in COMPLETE]

    configs = [None, *every]
    # cpu[program][config]: CPU seconds per round.
    cpu = {p: {c: [] for c in configs} for p, _ in complete_exes}
    for _ in range(opts.reps):
        for p, exe in complete_exes:
            for c in configs:
                share = ["--no-random-share"] if c is None else ["--random-share-every", str(c)]
                r = run(exe, [], ["--jobs", "1", "--ignore-races", *share])
                assert r["complete"], r["stop_reason"]
                cpu[p][c].append(r["cpu"])
    alone = {p: median(cpu[p][None]) for p, _ in complete_exes}
    row = ["none"]
    for p in SWEPT:
        exe, args = exes[p]
        cell, _ = time_to_bug(exe, args, ["--jobs", "1", "--no-random-share"], [None], opts.max_time)
        row.append(cell.split(";")[0])
    row += [f"{alone[p]:.2f} s" for p, _ in complete_exes]
    out.append("| " + " | ".join(row) + " |")
    print(out[-1], file=sys.stderr)
    for n in every:
        row = [str(n)]
        for p in SWEPT:
            exe, args = exes[p]
            cell, _ = time_to_bug(exe, args, ["--jobs", "1", "--random-share-every", str(n)],
                                  seeds, opts.max_time)
            row.append(cell.split(";")[0] + ("; " + cell.split("; ")[2] if "missed" in cell else ""))
        for p, _ in complete_exes:
            ratio = median([t / b for t, b in zip(cpu[p][n], cpu[p][None])])
            row.append(f"{median(cpu[p][n]):.2f} s ({ratio:.2f})")
        out.append("| " + " | ".join(row) + " |")
        print(out[-1], file=sys.stderr)
    out.append("")
    out.append(READING)
    text = "\n".join(out) + "\n"
    print(text)
    if not opts.no_write:
        section = os.path.join(WORK, "section.md")
        with open(section, "w") as f:
            f.write(text)
        subprocess.run([os.path.join(ROOT, "scripts", "replace-section.py"),
                        os.path.join(ROOT, "BENCHMARKS.md"), HEADING, section], check=True)


if __name__ == "__main__":
    main()
