#!/usr/bin/env bash
# synth/ppa_job.sh NAME.DEVICE -- one row of the numerics depth sweep, as a
# job of the sweep runner (synth/sweep/sweep.sh; make ppa-numerics writes the
# job list). Runs the row's make rule (build/ppa/NAME.DEVICE/done: the flow,
# or nothing when the row is up to date; a failing row keeps an entry with
# its status) and, under the runner, writes $SWEEP_OUT/result.tsv with the
# row's figures from its entry.json. Exit status: the make rule's.
set -uo pipefail
id=${1:?usage: synth/ppa_job.sh NAME.DEVICE}
BUILD=${BUILD:-build}
${MAKE:-make} -s --no-print-directory "$BUILD/ppa/$id/done"
rc=$?
e=$BUILD/ppa/$id/entry.json
if [ -n "${SWEEP_OUT:-}" ] && [ -f "$e" ]; then
    # entry.json is cJSON's formatted output: one "key":<TAB>value per line
    awk -v id="$id" '
    function val(k) { return (k in v) ? v[k] : "" }
    /^\t"[a-z_0-9]+":\t/ && !/[{[]$/ {
        k = $0; sub(/^\t"/, "", k); sub(/".*/, "", k)
        x = $0; sub(/^[^:]*:\t/, "", x); sub(/,$/, "", x); gsub(/"/, "", x)
        if (x == "null") x = ""
        v[k] = x
    }
    END {
        print "id\tstatus\tstages\tlatency_cycles\tfmax_mhz\tlcs\tdsps\tresults_per_s_per_lc"
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, val("status"), val("stages"), val("latency_cycles"),
            val("fmax_mhz"), val("lcs"), val("dsps"), val("results_per_s_per_lc")
    }' "$e" > "$SWEEP_OUT/result.tsv"
fi
[ -f "$BUILD/ppa/$id/FAILED" ] && echo "ppa_job: $id failed: see $BUILD/ppa/$id/flow.log"
exit $rc
