# synth/ppa_csv.awk -- csv(LINE, F): split one line of build/ppa's report.csv
# into F[1..n] (fields may be quoted, with "" for a quote and commas inside:
# a status often has both); returns n. Used with awk -f by synth/ppa_docs.sh
# and synth/ppa_formats.sh.
function csv(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = 0 }
            else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}
