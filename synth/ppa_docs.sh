#!/usr/bin/env bash
# synth/ppa_docs.sh NUMDIR DOC IMGDIR -- put the numerics PPA study into the
# docs (make ppa-docs): NUMDIR/report.csv (make ppa-numerics) becomes the
# Markdown table between the markers <!-- ppa-table:begin/end --> of DOC,
# NUMDIR/mac48_up5k.tsv the table between <!-- ppa-mac48:begin/end -->, and
# the charts are copied to IMGDIR. Nothing in those blocks is typed by hand.
set -euo pipefail
num=${1:?usage: synth/ppa_docs.sh NUMDIR DOC IMGDIR}
doc=${2:?usage: synth/ppa_docs.sh NUMDIR DOC IMGDIR}
img=${3:?usage: synth/ppa_docs.sh NUMDIR DOC IMGDIR}
[ -f "$num/report.csv" ] || { echo "ppa_docs: $num/report.csv missing (make ppa-numerics)"; exit 1; }
mkdir -p "$img"
cp "$num"/*.png "$num"/*.svg "$img"/ 2>/dev/null || true

table=$(mktemp); mac=$(mktemp)
trap 'rm -f "$table" "$mac"' EXIT
{
    echo "| unit | device | stages | latency (cycles) | Fmax (MHz) | LCs | DSPs | results/s per LC | status |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
    # CSV with quoted fields (a status may hold commas): split by hand
    # (csv(): synth/ppa_csv.awk)
    awk -f "$(dirname "$0")/ppa_csv.awk" -f /dev/stdin "$num/report.csv" <<'AWK'
    NR == 1 { n = csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    {
        csv($0, v)
        if (v[col["kind"]] != "unit") next
        printf "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", v[col["name"]], v[col["device"]],
            v[col["stages"]], v[col["latency_cycles"]], v[col["fmax_mhz"]], v[col["lcs"]], v[col["dsps"]],
            (v[col["results_per_s_per_lc"]] == "" ? "" : sprintf("%.0f", v[col["results_per_s_per_lc"]])),
            v[col["status"]]
    }
AWK
} > "$table"
if [ -f "$num/mac48_up5k.tsv" ]; then
    {
        echo "| unit | clock (MHz) | closes | stages | latency (cycles) | Fmax (MHz) | LCs | DSPs | elements | LCs per element |"
        echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
        awk -F'\t' 'NR > 1 { printf "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$num/mac48_up5k.tsv"
    } > "$mac"
fi

splice() {  # MARKER FILE: replace the block between the markers with FILE
    local m=$1 f=$2
    grep -q "<!-- $m:begin -->" "$doc" || { echo "ppa_docs: marker <!-- $m:begin --> not in $doc"; exit 1; }
    awk -v m="$m" -v f="$f" '
    $0 == "<!-- " m ":begin -->" { print; while ((getline l < f) > 0) print l; skip = 1; next }
    $0 == "<!-- " m ":end -->" { skip = 0 }
    !skip { print }' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
}
splice ppa-table "$table"
[ -s "$mac" ] && splice ppa-mac48 "$mac"
echo "ppa_docs: $(($(wc -l < "$table") - 2)) rows -> $doc, charts -> $img"
