"""Peak memory of reading human scores files, annotation sheets and data CSVs of several sizes.

Issue 22.9: a 2 GB human scores file reached 10.5 GB resident before a MemoryError, a 256 MB data
CSV used 2.9 GB. The target: under each kind's size cap (vivid_inspect/size_caps.py) the peak
memory a read adds stays under four times the file's size, and a file over the cap is refused
before it is read.

Each read runs in a fresh worker process: it imports the reader, notes its resident memory, reads
the file with the project's own entry point (``read_human_scores``; ``import_sheets``, as
``vivid annotate import``; ``load_items``, as every task and ``vivid data check``), and reports
the peak resident memory (``ru_maxrss``) minus the memory before the read: what the read itself
added. The files are synthetic, in the real formats, with Vietnamese text:

- ``human-scores``: ``id,score,annotator,generation`` in order (5 annotators, about 26 bytes a
  row); ``human-shuffled``, the same rows in no order (a file made by hand, which the repeat check
  sorts); ``human-narrow``, ``id,score`` only (the narrowest legal rows, about 9 bytes);
- ``sheet``: a filled annotation sheet (idiom, reference meaning, a 500-character explanation);
- ``data``: ``VIVID_Dataset.csv`` rows (an idiom, a meaning of 60-300 characters, float codes);
- ``json-log``: an Inspect ``.json`` log (the header of a real one, written by Inspect), its samples
  each holding a judged score and about 20 kB of events (60 small ones, as Inspect's, and a model call), read as ``vivid report`` reads one log
  (``read_header``, then ``read_summaries``, within ``VIVID_MAX_LOG_BYTES``). Issue 30.2: read
  whole, a 12.8 MB log took 509 MB.

``--source DIR`` imports ``vivid_inspect`` from another checkout (say, before this change) for
the same files. No timed assertions: it prints figures.

    python bench/input_size.py                # 1, 8 and 32 MiB (64 MiB for sheets and data), and over the cap
    python bench/input_size.py --quick        # 1 and 4 MiB
    python bench/input_size.py --source ../main --kinds data --sizes 1,16
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MIB = 2**20
KINDS = ("human-scores", "human-shuffled", "human-narrow", "sheet", "data", "json-log")
FULL_SIZES = {
    "human-scores": (1, 8, 32),
    "human-shuffled": (1, 8, 32),
    "human-narrow": (1, 8, 32),
    "sheet": (1, 16, 64),
    "data": (1, 16, 64),
    "json-log": (1, 13, 64),
}
QUICK_SIZES = (1, 4)
OVER_CAP = {
    "human-scores": 40,
    "human-shuffled": 40,
    "human-narrow": 40,
    "sheet": 80,
    "data": 80,
    "json-log": 130,
}
"""MiB of the over-the-cap file of each kind (the caps: 32 MiB for human scores files, 64 MiB for sheets
and data, 128 MiB for logs)."""
TARGET = 4.0

WORDS = [
    "ăn",
    "quả",
    "nhớ",
    "kẻ",
    "trồng",
    "cây",
    "nước",
    "chảy",
    "đá",
    "mòn",
    "có",
    "công",
    "mài",
    "sắt",
    "có",
    "ngày",
    "nên",
    "kim",
    "gieo",
    "gió",
    "gặt",
    "bão",
    "uống",
    "nước",
    "nhớ",
    "nguồn",
    "một",
    "cây",
    "làm",
    "chẳng",
    "nên",
    "non",
    "ba",
    "cây",
    "chụm",
    "lại",
    "nên",
    "hòn",
    "núi",
    "cao",
    "người",
    "ta",
    "là",
    "hoa",
    "đất",
    "học",
    "thầy",
    "không",
    "tày",
    "học",
    "bạn",
    "lời",
    "nói",
    "chẳng",
    "mất",
    "tiền",
    "mua",
    "lựa",
    "lời",
    "mà",
    "nói",
    "cho",
    "vừa",
    "lòng",
    "nhau",
]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _log_header() -> dict[str, object]:
    """The header of a real ``.json`` log: Inspect writes a one-sample eval with its mock model."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample

    with tempfile.TemporaryDirectory() as folder:
        (log,) = eval(
            Task(dataset=[Sample(id=1, input="hi", target="x")]),
            model="mockllm/model",
            log_dir=folder,
            log_format="json",
            display="none",
        )
        content = json.loads(Path(log.location).read_text(encoding="utf-8"))
    content.pop("samples", None)
    return dict(content)


def _write_log(path: Path, size: int, rng: random.Random) -> int:
    header = json.dumps(_log_header())
    rows = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(header[:-1] + ', "samples": [')
        while out.tell() < size:
            rows += 1
            # as Inspect's: many small objects (spans, steps, state changes), one model call's text
            events: list[dict[str, object]] = [
                {
                    "uuid": f"{rng.getrandbits(128):032x}",
                    "span_id": f"{rng.getrandbits(64):016x}",
                    "timestamp": "2026-01-01T00:00:00.000000+00:00",
                    "working_start": rng.random(),
                    "pending": False,
                    "event": "state",
                    "changes": [{"op": "add", "path": f"/messages/{i}", "value": i}],
                }
                for i in range(60)
            ]
            events.append(
                {"event": "model", "output": {"completion": _text(rng, 200)}, "input": [_text(rng, 100)]}
            )
            sample = {
                "id": rows,
                "epoch": 1,
                "input": _text(rng, 6),
                "target": _text(rng, 30),
                "metadata": {"theme": "Virtues", "traits": []},
                "scores": {"judge_aspect": {"value": rng.randrange(6), "metadata": {"strategy": "aspect"}}},
                "messages": [],
                "events": events,
            }
            out.write(("" if rows == 1 else ", ") + json.dumps(sample, ensure_ascii=False))
        out.write("]}")
    return rows


def write_file(kind: str, path: Path, size: int, seed: int = 0) -> int:
    """Write a synthetic file of just under ``size`` bytes; return its row count."""
    rng = random.Random(seed)
    if kind == "json-log":
        return _write_log(path, size - 32 * 2**10, rng)
    size -= 2048  # the last row ends below the size (a file of the cap's size is still read)
    annotators = ("lan", "minh", "hoa", "tuan", "binh")
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        if kind == "human-scores":
            out.write("id,score,annotator,generation\n")
            while out.tell() < size:
                rows += 1
                item, who = divmod(rows - 1, len(annotators))
                out.write(f"{item + 1},{rng.randrange(6)},{annotators[who]},gf9cceacef589\n")
        elif kind == "human-shuffled":
            # Rows in no order (a file made by hand): the repeat check must sort them.
            out.write("id,score,annotator,generation\n")
            while out.tell() < size:
                rows += 1
                item = (rows // len(annotators)) * 2654435761 % 1_000_003 + 1
                out.write(f"{item},{rng.randrange(6)},{annotators[rows % len(annotators)]},gf9cceacef589\n")
        elif kind == "human-narrow":
            out.write("id,score\n")
            while out.tell() < size:
                rows += 1
                out.write(f"{rows},{rng.randrange(6)}\n")
        elif kind == "sheet":
            out.write("id,idiom,reference_meaning,explanation,score,annotator\n")
            while out.tell() < size:
                rows += 1
                cells = (_text(rng, 6), _text(rng, 30), _text(rng, 110))
                out.write(f"{rows},{','.join(map(_quoted, cells))},{rng.randrange(6)},lan\n")
        else:
            out.write(
                "Idiom_Proverb,Meaning,Linguistic_Complexity_Taxonomy_1,Linguistic_Complexity_Taxonomy_2,"
                "Linguistic_Complexity_Taxonomy_3,Linguistic_Complexity_Taxonomy_4,Linguistic_Complexity_Taxonomy_5,"
                "Semantic_Theme\n"
            )
            while out.tell() < size:
                rows += 1
                idiom = f"{_text(rng, rng.randint(3, 8))[:-1]} {rows}"
                traits = ",".join(rng.choice(("0.0", "1.0")) for _ in range(5))
                meaning = _quoted(" " + _text(rng, rng.randint(8, 24)))  # ~70 characters, as the sample's
                out.write(f"{idiom},{meaning},{traits},{rng.randint(1, 7)}.0\n")
    return rows


WORKER = """
import json, os, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
if kind.startswith("human"):
    from vivid_inspect.lab.humans.scores_file import read_human_scores as read
elif kind == "json-log":
    from pathlib import Path
    from vivid_inspect.lab.bounded_zip import Budget, max_inflated
    from vivid_inspect.lab.report.reading.log_files import read_header, read_summaries
    def read(path):
        budget = Budget(max_inflated())
        read_header(Path(path), budget)
        return read_summaries(Path(path), budget)
elif kind == "sheet":
    from vivid_inspect.lab.humans.sheet_import import import_sheets
    out = path + ".humans.csv"
    def read(path):
        return import_sheets([path], out, force=True)
else:
    import logging
    logging.disable(logging.WARNING)
    import scipy.optimize  # the prevalence check's solver, imported on first use: 50 MB of code, not data
    from vivid_inspect.data import load_items
    def read(path):
        return load_items(path)[1]
# A first read of a tiny file of the same kind loads what the reader imports on first use, so
# that the figures are what a read adds, not one-time imports.
warm = path + ".warm.csv"
if kind == "json-log":  # one line: its header is the tiny read
    warm = path
    def read_warm(path):
        from inspect_ai.log import read_eval_log
        read_eval_log(path, header_only=True)
else:
    read_warm = read
    with open(path, encoding="utf-8") as f, open(warm, "w", encoding="utf-8") as w:
        w.writelines([next(f), next(f)])
try:
    read_warm(warm)
except Exception:
    pass
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
def high_water():
    # VmHWM, which clear_refs resets (ru_maxrss keeps the imports' own peak, which can exceed a small read)
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    reset = True
except OSError:
    reset = False
before = rss()
started = time.perf_counter()
error = None
try:
    result = read(path)
    rows = len(result)
except Exception as exc:
    error = str(exc).splitlines()[0][:200]
    rows = 0
seconds = time.perf_counter() - started
peak = high_water() if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print("BENCH_JSON " + json.dumps({"before": before, "peak": peak, "seconds": seconds, "rows": rows, "error": error}))
"""


def measure(kind: str, path: Path, source: Path | None) -> dict[str, object]:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, "-c", WORKER, kind, str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
        timeout=3600,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH_JSON ")), None)
    if line is None:
        return {
            "error": (done.stderr.strip().splitlines() or ["worker failed"])[-1][:200],
            "before": 0,
            "peak": 0,
        }
    return dict(json.loads(line.removeprefix("BENCH_JSON ")))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1 and 4 MiB only, no over-the-cap file")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--sizes", help="MiB, comma-separated (default: per kind, up to its cap)")
    parser.add_argument("--source", type=Path, help="import vivid_inspect from this checkout instead")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    load = os.getloadavg()[0]
    print(f"# input size: peak memory a read adds, per file size (target: under {TARGET:.0f}x the file)")
    print(f"python {sys.version.split()[0]}, vivid_inspect from {args.source or REPO}, load {load:.2f}")
    print()
    print("| kind | file MiB | rows | added peak MiB | x file | seconds | result |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    results = []
    with tempfile.TemporaryDirectory(prefix="vivid-input-size-") as folder:
        for kind in kinds:
            sizes = (
                [int(s) for s in args.sizes.split(",")]
                if args.sizes
                else list(QUICK_SIZES if args.quick else FULL_SIZES[kind])
            )
            plan = [(size, False) for size in sizes] + (
                [] if args.quick or args.sizes else [(OVER_CAP[kind], True)]
            )
            for size, over in plan:
                suffix = "json" if kind == "json-log" else "csv"
                path = Path(folder) / f"2026-01-01T00-00-00-00-00_{kind}-{size}.{suffix}"
                rows = write_file(kind, path, size * MIB)
                actual = path.stat().st_size
                figures = measure(kind, path, args.source)
                added = max(0, int(figures["peak"]) - int(figures["before"]))  # type: ignore[call-overload]
                ratio = added / actual
                if figures.get("error"):
                    outcome = f"refused: {figures['error']}" if over else f"ERROR: {figures['error']}"
                else:
                    outcome = "read" + ("" if ratio < TARGET else f" (over {TARGET:.0f}x)")
                seconds = float(figures.get("seconds", 0.0))  # type: ignore[arg-type]
                print(
                    f"| {kind} | {actual / MIB:.1f} | {rows:,} | {added / MIB:.1f} | {ratio:.2f} | {seconds:.2f} | {outcome} |",
                    flush=True,
                )
                results.append(
                    {
                        "kind": kind,
                        "bytes": actual,
                        "rows": rows,
                        "added_peak": added,
                        "ratio": ratio,
                        "seconds": seconds,
                        "result": outcome,
                    }
                )
                path.unlink()
    if args.json:
        args.json.write_text(
            json.dumps({"load": load, "results": results}, indent=1) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
