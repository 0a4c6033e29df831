/*
 * perf_scalesim.c -- export a GEMM on an SPU configuration as a SCALE-Sim v2
 * run: an architecture config (array, output-stationary dataflow, SRAM sizes
 * from the host plan's A/B/C regions) and an M, N, K topology (run with
 * `python3 scale.py -c spu.cfg -t gemm.csv -i gemm`). docs/perf-model.md
 * explains how SCALE-Sim's cycles differ from the SPU's.
 */
#include "spu/perf.h"
#include "spu/gemm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return SPU_EINVAL;
    FILE *f = fopen(path, "w");
    if (!f)
        return SPU_EIO;
    int rc = fputs(text, f) < 0 ? SPU_EIO : 0;
    if (fclose(f))
        rc = SPU_EIO;
    return rc;
}

int spu_perf_export_scalesim(const spu_perf_hw *hw, uint32_t M, uint32_t N, uint32_t K,
                             const char *dir)
{
    if (!hw || !dir || !*dir || !M || !N || !K || strcmp(hw->kind, "spu"))
        return SPU_EINVAL;
    spu_info_t info;
    spu_perf_hw_to_info(hw, &info);
    spu_gemm_plan p;
    int rc = spu_gemm_plan_make(&info, M, N, K, &p);
    if (rc)
        return rc;
    if (mkdir(dir, 0777) && errno != EEXIST)
        return SPU_EIO;
    /* SCALE-Sim sizes SRAMs in KiB: the plan's regions, at least 1 */
    const unsigned a_kb = p.a_bytes / 1024 ? p.a_bytes / 1024 : 1,
                   b_kb = p.b_bytes / 1024 ? p.b_bytes / 1024 : 1,
                   c_kb = p.c_bytes / 1024 ? p.c_bytes / 1024 : 1;
    /* its Bandwidth is words per cycle (USER mode); the link moves far less
     * than a word a cycle, so the run uses CALC and the link figure is noted */
    const double link_words_per_cycle = hw->link_bytes_per_s / hw->clock_hz;
    char cfg[2048];
    snprintf(cfg, sizeof cfg,
             "# SCALE-Sim v2 configuration of the SPU %s (written by spu roofline gemm --export scalesim)\n"
             "# array %ux%u, output stationary, scratchpad %u bytes in %u banks, clock %.0f Hz\n"
             "# the SPU's link moves %.6f bytes per cycle; SCALE-Sim's Bandwidth (words/cycle)\n"
             "# cannot express it: InterfaceBandwidth CALC reports the bandwidth a stall-free run needs\n"
             "[general]\n"
             "run_name = spu_%ux%u_os\n"
             "\n"
             "[architecture_presets]\n"
             "ArrayHeight:    %u\n"
             "ArrayWidth:     %u\n"
             "IfmapSramSzkB:    %u\n"
             "FilterSramSzkB:   %u\n"
             "OfmapSramSzkB:    %u\n"
             "IfmapOffset:    0\n"
             "FilterOffset:   10000000\n"
             "OfmapOffset:    20000000\n"
             "Dataflow : os\n"
             "Bandwidth : 1\n"
             "MemoryBanks:   %u\n"
             "\n"
             "[run_presets]\n"
             "InterfaceBandwidth: CALC\n",
             hw->name, hw->rows, hw->cols, hw->spad_bytes, hw->spad_banks, hw->clock_hz,
             link_words_per_cycle, hw->rows, hw->cols, hw->rows, hw->cols, a_kb, b_kb, c_kb,
             hw->spad_banks);
    char topo[256];
    snprintf(topo, sizeof topo, "Layer, M, N, K,\nspu_gemm_%ux%ux%u, %u, %u, %u,\n", M, N, K, M,
             N, K);
    if ((rc = write_file(dir, "spu.cfg", cfg)) || (rc = write_file(dir, "gemm.csv", topo)))
        return rc;
    return 0;
}
