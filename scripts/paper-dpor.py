#!/usr/bin/env python3
"""DPOR table for BENCHMARKS.md: the programs of the DPOR-CR paper (Fig. 8)
and the published Mazurkiewicz-trace counts, under our three DPOR variants.

Usage: scripts/paper-dpor.py [--quick] [FILTER] > table.md
Needs `make build`. Builds the examples with reach-cc into target/paper/
(-O1; the SV-COMP programs fib_bench and lastzero at -O0, where every `i += j`
stays a load, a load and a store as in the published counts: at -O1 the
compiler keeps the racy loop's values in registers).
"""
import json, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release")
OUT = os.path.join(ROOT, "target", "paper")
QUICK = "--quick" in sys.argv
FILTER = next((a for a in sys.argv[1:] if not a.startswith("--")), "")
UNOPTIMISED = {"fib_bench.c", "lastzero.c"}

# (label, source, args, extra options, paper DPOR, paper DPOR-CR, paper DPOR-CR+sleep, published traces)
CONFIGS = [
    ("Indexer(12)", "indexer.c", ["12"], [], "8614.6", "154", "27", "8"),
    ("Indexer(13)", "indexer.c", ["13"], [], "", "", "", "64"),
    ("Indexer(14)", "indexer.c", ["14"], [], "", "", "", "512"),
    ("Indexer(15)", "indexer.c", ["15"], [], "", "", "", "4096"),
    ("File System(14)", "filesystem.c", ["14"], [], "", "", "", "2"),
    ("File System(16)", "filesystem.c", ["16"], [], "568.4", "26.8", "19.5", "8"),
    ("File System(18)", "filesystem.c", ["18"], [], ">10000", "250.2", "145.8", "32"),
    ("Parallel Pi(3)", "parallel_pi.c", ["3"], [], ">10000", "3217.8", "19.2", ""),
    ("Bounded Buffer", "bounded_buffer.c", [], [], "64.4", "67.2", "16", ""),
    ("fib_bench(4)", "fib_bench.c", ["4"], ["--ignore-races", "--keep-going"], "", "", "", "19,605"),
    ("lastzero(5)", "lastzero.c", ["5"], ["--ignore-races", "--keep-going"], "", "", "", "64"),
    ("lastzero(10)", "lastzero.c", ["10"], ["--ignore-races", "--keep-going"], "", "", "", "3,328"),
]
STRATEGIES = ["dpor-classic", "dpor-cr", "dpor"]
LIMIT = "2000" if QUICK else "10000"


def build(source):
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, source.rsplit(".", 1)[0])
    level = "-O0" if source in UNOPTIMISED else "-O1"
    subprocess.run([os.path.join(BIN, "reach-cc"), level, "-g",
                    os.path.join(ROOT, "c-examples", source), "-o", exe], check=True)
    return exe


def run(exe, strategy, args, extra):
    report = os.path.join(OUT, "report.json")
    cmd = ["/usr/bin/time", "-f", "%M", os.path.join(BIN, "reach-native"), "--quiet", "--stats",
           "--strategy", strategy, "--max-executions", LIMIT, "--max-time", "60",
           "--json", report, "--schedule-out", os.path.join(OUT, "x.schedule")] + extra + [exe] + args
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    rss_kib = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
    data = json.load(open(report))
    execs = data["executions"]
    shown = str(execs) if data["complete"] else f">{execs}"
    return shown, data.get("partial_orders"), data.get("sleep_blocked"), wall, rss_kib


def main():
    built = {}
    print("| program | paper DPOR | paper DPOR-CR | paper DPOR-CR+sleep | published traces "
          "| ours dpor-classic | ours dpor-cr | ours dpor (CR+sleep) | sleep-blocked | distinct partial orders | time (s) | peak RSS (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, source, args, extra, p_dpor, p_cr, p_sleep, traces in CONFIGS:
        if FILTER not in label:
            continue
        if source not in built:
            built[source] = build(source)
        cells = {}
        for strategy in STRATEGIES:
            cells[strategy] = run(built[source], strategy, args, extra)
        ours = cells["dpor"]
        print(f"| {label} | {p_dpor} | {p_cr} | {p_sleep} | {traces} | {cells['dpor-classic'][0]} "
              f"| {cells['dpor-cr'][0]} | {ours[0]} | {ours[2]} | {ours[1]} | {ours[3]:.2f} "
              f"| {int(ours[4]) / 1024:.1f} |", flush=True)


main()
