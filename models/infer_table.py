#!/usr/bin/python3
"""Regenerate the README's networks table (make infer-table).

For every shipped model and every format the device carries, runs
  spu infer --model M --format F --device model --json          (accuracy, cycles)
  spu infer --model M --format F --device sim --images N --json (link bytes, bitexact)
plus, for docs/runtime.md, every model in int8 on the iCEBreaker's geometry
(BOARD_URI, --board-images images), and rewrites the regions between
  <!-- infer-table:begin --> ... <!-- infer-table:end -->
of README.md (the short table) and of docs/runtime.md (the long one).
Every number in the table comes from these runs; the raw JSON lines are kept
in OUT_DIR (build/infer-table/) for docs/runtime.md.

usage: models/infer_table.py --spu build/bin/spu [--readme README.md]
         [--images N] [--sim-images N] [--models a,b] [--formats a,b] [--out DIR]
--images 0 means the full test set (10,000); --sim-images 0 skips sim (the link
bytes column then says n/a).
"""
import argparse
import json
import os
import subprocess
import sys

BEGIN = "<!-- infer-table:begin -->"
END = "<!-- infer-table:end -->"
MODELS = ["fmnist-mlp", "fmnist-cnn", "fmnist-vit"]
FORMATS = ["int8", "e4m3", "e5m2", "bf16", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8"]
BOARD_URI = "model?rows=4&cols=4&spad=131072&banks=2&ucode=256&lanes=1&vector=0&spram=1&loops=2&formats=1"
DESC = {
    "fmnist-mlp": "784-256-128-10",
    "fmnist-cnn": "2 conv + 2 dense",
    "fmnist-vit": "2 encoder layers, 4 heads",
}


def run(spu, args, log):
    cmd = [spu, "infer", "--json"] + args
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("infer_table: %s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    line = p.stdout.strip().splitlines()[-1]
    log.write(line + "\n")
    log.flush()
    return json.loads(line)


def fmt_int(v):
    return "{:,}".format(int(round(v)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spu", required=True)
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--docs", default="docs/runtime.md")
    ap.add_argument("--board-images", type=int, default=256)
    ap.add_argument("--images", type=int, default=0)
    ap.add_argument("--sim-images", type=int, default=64)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--out", default="build/infer-table")
    ap.add_argument("--from-log", nargs="+", help="re-render from the runs.jsonl of earlier runs (no spu runs)")
    a = ap.parse_args()

    for path in (a.readme, a.docs):
        with open(path) as f:
            t = f.read()
        if t.count(BEGIN) != 1 or t.count(END) != 1 or t.index(BEGIN) > t.index(END):
            sys.exit("infer_table: %s needs exactly one %s ... %s region" % (path, BEGIN, END))

    rows, board = [], []
    if a.from_log:
        runs = [json.loads(l) for p in a.from_log for l in open(p) if l.strip()]
        sims = {(r["model"], r["format"]): r for r in runs if r["device"] == "sim"}
        for r in runs:
            if r["device"] == "model":
                s = sims.get((r["model"], r["format"]))
                rows.append((r["model"], r["format"], r, s))
            elif r["device"] == BOARD_URI:
                board.append(r)
        for r in sims.values():
            if r["bitexact"] is not True or r.get("cycle_exact") is not True:
                sys.exit("infer_table: %s %s on sim is not bit- and cycle-exact with the model" % (r["model"], r["format"]))
        order = lambda m, f: (MODELS.index(m) if m in MODELS else 99, FORMATS.index(f) if f in FORMATS else 99)
        rows.sort(key=lambda x: order(x[0], x[1]))
        board.sort(key=lambda r: order(r["model"], "int8"))
        a.sim_images = int(next(iter(sims.values()))["images"]) if sims else 0
        a.board_images = int(board[0]["images"]) if board else 0
    else:
        os.makedirs(a.out, exist_ok=True)
    with (open(os.devnull, "w") if a.from_log else open(os.path.join(a.out, "runs.jsonl"), "w")) as log:
        for m in ([] if a.from_log else a.models.split(",")):
            for fm in a.formats.split(","):
                args = ["--model", m, "--format", fm, "--device", "model"]
                if a.images:
                    args += ["--images", str(a.images)]
                r = run(a.spu, args, log)
                s = None
                if a.sim_images:
                    s = run(a.spu, ["--model", m, "--format", fm, "--device", "sim",
                                    "--images", str(a.sim_images)], log)
                    if s["bitexact"] is not True or s.get("cycle_exact") is not True:
                        sys.exit("infer_table: %s %s on sim is not bit- and cycle-exact with the model" % (m, fm))
                rows.append((m, fm, r, s))
            if a.board_images:
                board.append(run(a.spu, ["--model", m, "--format", "int8", "--device", BOARD_URI,
                                         "--images", str(a.board_images)], log))

    n = int(rows[0][2]["images"]) if rows else 0
    sim_note = ("link bytes on `sim` over the first %d images (weights are sent once per batch of 64), "
                "where every run was also bit- and cycle-exact with `model`" % a.sim_images
                if a.sim_images else "link bytes not measured (`--sim-images 0`)")
    if any(s is None for _, _, _, s in rows) and a.sim_images:
        sim_note += " (n/a: that model and format was not run on `sim`)"
    head = [BEGIN, "<!-- generated by `make infer-table` (models/infer_table.py); do not edit by hand -->", "",
            "%s test images on `model` (8×8 array); %s:" % (fmt_int(n), sim_note), ""]

    short = head + ["| model | format | accuracy | fp32 accuracy | fp32 agreement | cycles / image | link bytes / image "
                    "| host ops |",
                    "|---|---|---|---|---|---|---|---|"]
    for m, fm, r, s in rows:
        short.append("| `%s` (%s) | %s | %.4f | %.4f | %.4f | %s | %s | %d |" % (
            m, DESC.get(m, ""), fm, r["accuracy"], r["fp32_accuracy"], r["fp32_agreement"],
            fmt_int(r["cycles_per_image"]), fmt_int(s["link_bytes_per_image"]) if s else "n/a",
            len(r.get("host_ops", []))))
    short += ["", END]

    long = head + ["| model | format | accuracy | fp32 accuracy | fp32 agreement | cycles / image | MACs / image "
                   "| MACs / cycle | link bytes / image | GEMM calls / image | host ops |",
                   "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m, fm, r, s in rows:
        long.append("| `%s` | %s | %.4f | %.4f | %.4f | %s | %s | %.1f | %s | %.2f | %d |" % (
            m, fm, r["accuracy"], r["fp32_accuracy"], r["fp32_agreement"], fmt_int(r["cycles_per_image"]),
            fmt_int(r["macs_per_image"]), r["macs_per_image"] / r["cycles_per_image"],
            fmt_int(s["link_bytes_per_image"]) if s else "n/a", r["gemms_per_image"],
            len(r.get("host_ops", []))))
    if board:
        long += ["", "int8 on the iCEBreaker's geometry (`--device '%s' --images %d`: a 4×4 array, a 128 KiB "
                 "scratchpad in two single-port SPRAM banks, two loops, int8 only, as the board's INFO says); "
                 "compute time at the board's 24 MHz:"
                 % (BOARD_URI, int(board[0]["images"])), "",
                 "| model | cycles / image | ms / image at 24 MHz | GEMM calls / image |", "|---|---|---|---|"]
        for r in board:
            long.append("| `%s` | %s | %.2f | %.2f |" % (r["model"], fmt_int(r["cycles_per_image"]),
                                                         r["cycles_per_image"] / 24e3, r["gemms_per_image"]))
    long += ["", END]

    for path, region in ((a.readme, short), (a.docs, long)):
        with open(path) as f:
            text = f.read()
        i, j = text.index(BEGIN), text.index(END) + len(END)
        text = text[:i] + "\n".join(region) + text[j:]
        with open(path, "w") as f:
            f.write(text)
        print("infer_table: %s rewritten (%d rows)" % (path, len(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
