#!/usr/bin/env bash
# synth/ppa_plots.sh REPORT.csv OUTDIR -- the charts of the numerics PPA
# study (make ppa-numerics), with gnuplot, as PNG and SVG:
#   OUTDIR/fmax_lcs_FAMILY_DEVICE.{png,svg}  Fmax against LCs, one point per
#       pipeline depth (labelled with STAGES), one series per format; FAMILY
#       is mul (multipliers), cvt (converters, fx2f32, accumulator), mx (MX
#       block dot units).
#   OUTDIR/mac48_up5k.{png,svg} + mac48_up5k.tsv  per unit and format on the
#       UP5K, the cheapest depth (fewest LCs) that closes at 48 MHz
#       (multipliers, accumulator, converters) or 24 MHz (MX dot units, LCs
#       per element); the TSV also lists, as closes = no, the fastest depth of
#       the units that do not close (the chart shows only those that do).
# Rows without fmax (failed runs) are left out of the charts; they stay in
# the report with their status.
set -euo pipefail
csv=${1:?usage: synth/ppa_plots.sh REPORT.csv OUTDIR}
out=${2:?usage: synth/ppa_plots.sh REPORT.csv OUTDIR}
command -v gnuplot >/dev/null || { echo "ppa_plots: gnuplot not found (make deps)"; exit 1; }
mkdir -p "$out/data"
rm -f "$out"/data/*.dat
# A status may be a quoted field with commas: replace those commas (and drop
# the quotes) so the plain awk -F, below sees one field per column.
awk '{
    r = ""; q = 0
    for (i = 1; i <= length($0); i++) {
        c = substr($0, i, 1)
        if (c == "\"") { q = !q; continue }
        r = r ((q && c == ",") ? ";" : c)
    }
    print r
}' "$csv" > "$out/data/report.csv"
csv=$out/data/report.csv

# data/FAMILY_DEVICE_SERIES.dat: lcs fmax stages, by stages
awk -F, -v dir="$out/data" '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$col["kind"] == "unit" && $col["fmax_mhz"] != "" && $col["stages"] != "" {
    n = $col["name"]; sub(/^spu_/, "", n); sub(/_s[0-9]+$/, "", n)
    fam = (n ~ /^mul_/) ? "mul" : (n ~ /^mx_dot/) ? "mx" : "cvt"
    s = n; sub(/^mul_/, "", s); sub(/^mx_dot_/, "", s); sub(/^cvt_f32_/, "cvt_", s)
    f = dir "/" fam "_" $col["device"] "_" s ".dat"
    print $col["stages"], $col["lcs"], $col["fmax_mhz"] | ("sort -n > " f)
}' "$csv"

plot_family() {  # FAMILY DEVICE TITLE
    local fam=$1 dev=$2 title=$3 files=() f plots=""
    for f in "$out"/data/${fam}_${dev}_*.dat; do [ -s "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] || return 0
    for f in "${files[@]}"; do
        local s; s=$(basename "$f" .dat); s=${s#${fam}_${dev}_}
        plots+="'$f' using 2:3 with linespoints pt 7 ps 1.2 title '${s//_/ }', "
        plots+="'$f' using 2:3:(sprintf('%d', \$1)) with labels offset 0.9,0.7 font ',9' notitle, "
    done
    for term in "pngcairo size 900,600 font ',11'" "svg size 900,600 font 'sans,11'"; do
        local ext=png; [[ $term == svg* ]] && ext=svg
        gnuplot <<GP
set terminal $term
set output '$out/fmax_lcs_${fam}_${dev}.$ext'
set title "$title on $dev: Fmax against LCs, one point per pipeline depth (label = STAGES)"
set xlabel 'logic cells (SB\\_LUT4 + carry + FF packed, nextpnr)'
set ylabel 'Fmax (MHz, lower of nextpnr and icetime)'
set grid
set key outside right top
set logscale x
set yrange [0:*]
plot ${plots%, }
GP
    done
}
for dev in up5k hx8k; do
    plot_family mul "$dev" "Multipliers"
    plot_family cvt "$dev" "Converters and accumulator"
    plot_family mx "$dev" "MX block dot units"
done

# ---- summary: multiply-accumulate cost at a fixed clock on the UP5K ---------
# closes = yes: the cheapest depth that meets the clock; no: the fastest depth
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$col["kind"] == "unit" && $col["device"] == "up5k" && $col["fmax_mhz"] != "" && $col["stages"] != "" {
    n = $col["name"]; sub(/^spu_/, "", n); sub(/_s[0-9]+$/, "", n)
    if (n !~ /^(mul_|acc_fx|mx_dot|cvt_f32|fx2f32)/) next
    target = (n ~ /^mx_dot/) ? 24 : 48
    f = $col["fmax_mhz"] + 0; l = $col["lcs"] + 0
    ok = f >= target
    better = !(n in have) || (ok && !cl[n]) || (ok && cl[n] && l < lcs[n]) || (!ok && !cl[n] && f > fm[n])
    if (better) {
        have[n] = 1; cl[n] = ok; lcs[n] = l; dsp[n] = $col["dsps"] + 0
        st[n] = $col["stages"]; lat[n] = $col["latency_cycles"]; fm[n] = f; tg[n] = target
    }
}
END {
    print "unit\ttarget_mhz\tcloses\tstages\tlatency_cycles\tfmax_mhz\tlcs\tdsps\telements\tlcs_per_element"
    for (n in have) {
        el = 1; if (match(n, /_n[0-9]+$/)) el = substr(n, RSTART + 2) + 0
        printf "%s\t%d\t%s\t%s\t%s\t%.2f\t%d\t%d\t%d\t%.1f\n", n, tg[n], cl[n] ? "yes" : "no", st[n], lat[n], fm[n], lcs[n], dsp[n], el, lcs[n] / el
    }
}' "$csv" | { read -r h; echo "$h"; sort; } > "$out/mac48_up5k.tsv"
awk -F'\t' 'NR == 1 || $3 == "yes"' "$out/mac48_up5k.tsv" > "$out/data/mac48_closing.tsv"

if [ "$(wc -l < "$out/data/mac48_closing.tsv")" -gt 1 ]; then
    for term in "pngcairo size 900,550 font ',11'" "svg size 900,550 font 'sans,11'"; do
        ext=png; [[ $term == svg* ]] && ext=svg
        gnuplot <<GP
set terminal $term
set output '$out/mac48_up5k.$ext'
set title "UP5K: logic cells per multiply-accumulate element at a fixed clock\n(multipliers and accumulator at 48 MHz, MX dot units at 24 MHz, per element; label = STAGES / DSPs)"
set style data histograms
set style fill solid 0.7 border -1
set boxwidth 0.8
set ylabel 'LCs per element (cheapest depth that closes)'
set xtics rotate by -35 scale 0 noenhanced
set grid ytics
set yrange [0:*]
set datafile separator '\t'
plot '$out/data/mac48_closing.tsv' every ::1 using 10:xtic(1) notitle lc rgb '#4477aa', \
     '' every ::1 using 0:10:(sprintf('s%s/%sd', stringcolumn(4), stringcolumn(8))) with labels offset 0,0.8 notitle
GP
    done
fi
echo "ppa_plots: $(ls "$out"/*.png 2>/dev/null | wc -l) charts (PNG + SVG) in $out"
