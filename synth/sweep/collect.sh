#!/usr/bin/env bash
# synth/sweep/collect.sh OUTDIR -- merge every job of OUTDIR/jobs.tsv into
# OUTDIR/table.tsv, table.csv and table.json (one row/object per job, in
# job-list order). Columns: name, status (ok | FAIL | MISSING: the job never
# ran), exit, wall_s, host, then the union of the jobs' result.tsv columns in
# first-seen order. In JSON a value that reads as a number is a number, an
# empty one is null. Exit 0 when every job is ok, 1 otherwise.
set -euo pipefail
out=$1
[ -f "$out/jobs.tsv" ] || { echo "collect: $out/jobs.tsv not found" >&2; exit 2; }

args=()
while IFS=$'\t' read -r name _; do
    args+=("$name" "$out/jobs/$name/status" "$out/jobs/$name/result.tsv")
done < "$out/jobs.tsv"

# one awk over (name, status file, result file) triples given as arguments
awk -v out="$out" '
function readfile(f, arr,    n, l) { n = 0; while ((getline l < f) > 0) arr[++n] = l; close(f); return n }
function isnum(v) { return v ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
function jstr(v) { gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v); gsub(/\t/, "\\t", v); return "\"" v "\"" }
function csv(v) { if (v ~ /[",\n]/) { gsub(/"/, "\"\"", v); v = "\"" v "\"" } return v }
BEGIN {
    ncol = split("name status exit wall_s host", cols, " ")
    for (c = 1; c <= ncol; c++) known[cols[c]] = 1
    nrow = 0; nbad = 0
    for (a = 1; a < ARGC; a += 3) {
        name = ARGV[a]; sf = ARGV[a + 1]; rf = ARGV[a + 2]
        r = ++nrow
        val[r, "name"] = name
        delete st; ns = readfile(sf, st)
        if (ns == 0) { val[r, "status"] = "MISSING" }
        else {
            split(st[1], f, "\t")
            val[r, "exit"] = f[1]; val[r, "wall_s"] = f[2]; val[r, "host"] = f[3]
            val[r, "status"] = (f[1] == "0") ? "ok" : "FAIL"
        }
        if (val[r, "status"] != "ok") nbad++
        delete res; nr = readfile(rf, res)
        if (nr >= 2) {
            nh = split(res[1], h, "\t"); split(res[2], v, "\t")
            for (c = 1; c <= nh; c++) {
                if (h[c] == "" ) continue
                if (!(h[c] in known)) { known[h[c]] = 1; cols[++ncol] = h[c] }
                if (h[c] == "status" || h[c] == "name") continue
                val[r, h[c]] = v[c]
            }
        }
    }
    tsv = out "/table.tsv"; csvf = out "/table.csv"; js = out "/table.json"
    for (c = 1; c <= ncol; c++) {
        printf "%s%s", (c > 1 ? "\t" : ""), cols[c] > tsv
        printf "%s%s", (c > 1 ? "," : ""), csv(cols[c]) > csvf
    }
    print "" > tsv; print "" > csvf
    print "[" > js
    for (r = 1; r <= nrow; r++) {
        line = ""
        printf "  {" > js
        for (c = 1; c <= ncol; c++) {
            k = cols[c]; x = ((r, k) in val) ? val[r, k] : ""
            printf "%s%s", (c > 1 ? "\t" : ""), x > tsv
            printf "%s%s", (c > 1 ? "," : ""), csv(x) > csvf
            jv = (x == "") ? "null" : (isnum(x) && k != "name" && k != "host") ? x : jstr(x)
            printf "%s%s: %s", (c > 1 ? ", " : ""), jstr(k), jv > js
        }
        print "" > tsv; print "" > csvf
        printf "}%s\n", (r < nrow ? "," : "") > js
    }
    print "]" > js
    close(tsv); close(csvf); close(js)
    printf "[sweep] %d jobs: %d ok, %d failed -> %s/table.{tsv,csv,json}\n", nrow, nrow - nbad, nbad, out
    exit (nbad > 0)
}' "${args[@]}"
