#!/usr/bin/env bash
# synth/ppa_formats.sh TABLE REPORT.csv DOC -- docs/fpga.md's "Formats per
# board" (make ppa-formats): every array row of TABLE (build/ppa/table.tsv:
# synth/ppa_table.tsv's and those synth/ppa_rows.sh generates; kind spu;
# formats named from the FORMATS bits by DEF, hw/isa/spu_cfg.def) with its result in
# REPORT.csv (spu-ppa report of the rows' entries) becomes the Markdown
# table between the markers <!-- ppa-formats:begin/end --> of DOC, followed
# by one line per board: the configurations that fit (placed, routed, met
# the row's CLK_MHZ) and those that do not, with why. A row without an
# entry is listed as "not run". Nothing in the block is typed by hand.
set -euo pipefail
table=${1:?usage: synth/ppa_formats.sh TABLE REPORT.csv DOC [DEF]}
csv=${2:?usage: synth/ppa_formats.sh TABLE REPORT.csv DOC [DEF]}
doc=${3:?usage: synth/ppa_formats.sh TABLE REPORT.csv DOC [DEF]}
def=${4:-hw/isa/spu_cfg.def}
[ -f "$csv" ] || { echo "ppa_formats: $csv missing (make ppa-formats)"; exit 1; }
[ -f "$def" ] || { echo "ppa_formats: $def missing"; exit 1; }
# "code=key ..." of the array dtypes (the FORMATS bits) in the formats table
fkeys=$(awk '/^[ \t]*SPU_DTYPE[ \t]*\(/ { s = $0; sub(/^[^(]*\(/, "", s); sub(/\).*/, "", s); gsub(/[ \t"]/, "", s)
             split(s, f, ","); if (f[5] == 1) printf "%s=%s ", f[3], f[2] }' "$def")
grep -q '<!-- ppa-formats:begin -->' "$doc" || { echo "ppa_formats: marker <!-- ppa-formats:begin --> not in $doc"; exit 1; }
block=$(mktemp)
trap 'rm -f "$block"' EXIT
awk -v fkeys="$fkeys" -f "$(dirname "$0")/ppa_csv.awk" -f /dev/stdin "$csv" "$table" > "$block" <<'AWK'
BEGIN { total["up5k"] = 5280; total["hx8k"] = 7680
        nf = split(fkeys, fk, " "); for (i = 1; i <= nf; i++) { split(fk[i], kv, "="); fkey[kv[1] + 0] = kv[2] }
        bname["icebreaker"] = "iCEBreaker (UP5K)"; bname["hx8k"] = "HX8K" }
FNR == 1 && FILENAME != ARGV[2] { n = csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
FILENAME != ARGV[2] {
    csv($0, v)
    if (v[col["kind"]] != "spu") next
    id = v[col["name"]] "." v[col["device"]]
    have[id] = 1
    for (k in col) r[id, k] = v[col[k]]
    next
}
# the table: array rows in its order
/^#/ || NF < 4 || $2 != "spu" { next }
{
    id = $1 "." $3; name = $1; board = $4
    rows = cols = fmask = clk = ""
    for (i = 5; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "ROWS") rows = kv[2]; else if (kv[1] == "COLS") cols = kv[2]
        else if (kv[1] == "FORMATS") fmask = kv[2]; else if (kv[1] == "CLK_MHZ") clk = kv[2]
    }
    # the array and its formats from the row's parameters (ROWS, COLS; the
    # FORMATS bits named by the formats table; the board's defaults when unset)
    arr = (rows == "" ? "4" : rows) "x" (cols == "" ? "4" : cols)
    m = (fmask == "" ? 1 : fmask + 0); fm = ""
    for (b = 0; b < 32 && m > 0; b++) {
        if (m % 2 == 1) fm = fm (fm == "" ? "" : " + ") ((b in fkey) ? fkey[b] : "bit " b "?")
        m = int(m / 2)
    }
    cmd = "make bitstream BOARD=" board (rows != "" ? " ROWS=" rows : "") (cols != "" ? " COLS=" cols : "") \
          (fmask != "" ? " FORMATS=" fmask : "") (clk != "" ? " CLK_MHZ=" clk : "")
    if (!(id in have)) { st = "not run"; lcs = ""; fmax = ""; dsp = ""; ebr = "" }
    else {
        st = r[id, "status"]; lcs = r[id, "lcs"]; fmax = r[id, "fmax_mhz"]; dsp = r[id, "dsps"]; ebr = r[id, "ebr"]
        if (lcs == "" && match(st, /needs at least [0-9]+ logic cells/)) {
            need = substr(st, RSTART + 15, RLENGTH - 15); sub(/ .*/, "", need)
            lcs = ">= " need " (Yosys estimate)"
        }
    }
    # the result from the status (the same patterns as make ppa's "do not
    # fit / miss their clock"): placed and routed at the clock; more logic
    # cells / DSPs / RAM than the device has (Yosys's count or nextpnr's);
    # placed but below the row's clock; any other failure is the flow's
    if (st == "ok") res = "fits"
    else if (st == "not run") res = "not run"
    else if (st ~ /timing not met/) res = "misses its clock"
    else if (st ~ /needs (at least )?[0-9]+ |uses [0-9.]+ [a-z]+, the |Unable to place|only [0-9]+ available/) res = "does not fit"
    else res = "flow failed"
    printf "| %s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s |\n", bname[board], arr, fm, cmd,
        (lcs == "" ? "" : lcs " / " total[$3]), dsp, ebr, fmax, clk,
        (st == "ok" ? "**fits**" : (res == "not run" ? st : res ": " st)) > "/dev/stdout"
    nb[board]++; order[board, nb[board]] = arr " " fm
    what[board, nb[board]] = res
    if (!(board in seen)) { seen[board] = 1; boards[++nbo] = board }
}
END {
    print ""
    for (b = 1; b <= nbo; b++) {
        bd = boards[b]; fit = ""; nofit = ""; nr = ""; slow = ""; err = ""
        for (i = 1; i <= nb[bd]; i++) {
            if (what[bd, i] == "fits") fit = fit (fit == "" ? "" : ", ") order[bd, i]
            else if (what[bd, i] == "not run") nr = nr (nr == "" ? "" : ", ") order[bd, i]
            else if (what[bd, i] == "misses its clock") slow = slow (slow == "" ? "" : ", ") order[bd, i]
            else if (what[bd, i] == "flow failed") err = err (err == "" ? "" : ", ") order[bd, i]
            else nofit = nofit (nofit == "" ? "" : ", ") order[bd, i]
        }
        printf "- **%s** fits: %s; does not fit: %s%s%s%s\n", bname[bd], (fit == "" ? "none of the rows" : fit),
            (nofit == "" ? "none of the rows" : nofit), (slow == "" ? "" : "; places but misses its clock: " slow),
            (err == "" ? "" : "; flow failed (see the row's flow.log): " err), (nr == "" ? "" : "; not run: " nr)
    }
}
AWK
{
    echo "| board | array | formats | command | LCs (used / available) | DSPs | EBR | Fmax (MHz) | target (MHz) | result |"
    echo "|---|---|---|---|---:|---:|---:|---:|---:|---|"
    cat "$block"
} > "$block.md"
awk -v f="$block.md" '
$0 == "<!-- ppa-formats:begin -->" { print; while ((getline l < f) > 0) print l; skip = 1; next }
$0 == "<!-- ppa-formats:end -->" { skip = 0 }
!skip { print }' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
rm -f "$block.md"
echo "ppa_formats: $(awk '!/^#/ && NF >= 4 && $2 == "spu"' "$table" | wc -l) array rows -> $doc"
