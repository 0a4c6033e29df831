# synth/build.mk -- the open iCE40 flow: bitstreams, PPA reports, programming.
#
#   make bitstream BOARD=icebreaker|hx8k [ROWS=4 COLS=4 FORMATS=1 CLK_MHZ=24|48 BAUD=0 SEED=1]
#       (CLK_MHZ: the board's default, 24 on the iCEBreaker, 48 on the HX8K)
#       -> build/fpga/BOARD/spu.bin (+ nextpnr.json, icetime.json, entry.json)
#   make prog BOARD=...      iceprog build/fpga/BOARD/spu.bin (needs the board)
#   make ppa [-j2]           every row of synth/ppa_table.tsv (and every numerics
#                            unit not yet in it) -> build/ppa/report.{json,csv,md}
#   make ppa-diff OLD=path/report.json [NEW=build/ppa/report.json] [THRESHOLD=5]
# The flow itself is synth/flow.sh; the report generator is build/bin/spu-ppa
# (synth/ppa_report.c, cJSON). docs/fpga.md explains the numbers.

SPU_PPA_BIN := $(BUILD)/bin/spu-ppa
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null)
CJSON_LIBS   := $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)

all: $(SPU_PPA_BIN)

$(SPU_PPA_BIN): synth/ppa_report.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CJSON_CFLAGS) -o $@ $< $(CJSON_LIBS) -lm

SYNTH_FLOW    := synth/flow.sh
SYNTH_RTL     := $(sort $(wildcard hw/rtl/*.v hw/rtl/*/*.v))
SYNTH_DEPS    := $(SYNTH_FLOW) $(BUILD)/gen/spu_isa.vh

# --- bitstream ----------------------------------------------------------------
BOARD   ?= icebreaker
ROWS    ?=
COLS    ?=
FORMATS ?=
# the board top's default clock (spu_board_BOARD.v): the HX8K's LUT array
# closes near 58 MHz, the iCEBreaker near 26 (docs/fpga.md)
CLK_MHZ ?= $(if $(filter hx8k,$(BOARD)),48,24)
BAUD    ?=
SEED    ?= 1
BOARD_PARAMS = $(foreach p,ROWS COLS FORMATS CLK_MHZ BAUD SPAD_BYTES UCODE_WORDS SPAD_SPRAM CHAIN LOOP_DEPTH UCODE_TWIN SPAD_2X ARRAY_2X OVERLAP,$(if $($(p)),$(p)=$($(p))))

.PHONY: bitstream prog ppa ppa-diff board-status
# Every run leaves build/fpga/BOARD/entry-seedN.json (a failed placement too,
# with its FAIL message as status) for `make board-status`.
BOARD_DEV = $(if $(filter icebreaker,$(BOARD)),up5k,$(BOARD))
bitstream: $(SYNTH_DEPS) $(SPU_PPA_BIN)
	@d=$(BUILD)/fpga/$(BOARD); mkdir -p $$d; rm -f $$d/entry.json $$d/entry-seed$(SEED).json; \
	SEED=$(SEED) synth/flow.sh board $(BOARD) $$d spu_$(BOARD) $(BOARD_PARAMS) 2>$$d/flow.err; rc=$$?; cat $$d/flow.err >&2; \
	if [ ! -f $$d/entry.json ]; then \
	  $(SPU_PPA_BIN) entry --name spu_$(BOARD) --kind spu --device $(BOARD_DEV) --target-mhz $(CLK_MHZ) \
	    --seed $(SEED) --status "$$(grep -m1 FAIL $$d/flow.err || echo 'FAIL: flow failed')" -o $$d/entry.json; fi; \
	cp $$d/entry.json $$d/entry-seed$(SEED).json; \
	[ $$rc = 0 ] && echo "bitstream: $$d/spu.bin ($$(stat -c %s $$d/spu.bin) bytes), seed $(SEED)"; exit $$rc

# README.md's board status lines, from the runs above (all boards, all seeds)
board-status: $(SPU_PPA_BIN)
	@$(SPU_PPA_BIN) readme README.md $(sort $(wildcard $(BUILD)/fpga/*/entry-seed*.json))

prog:
	@test -f $(BUILD)/fpga/$(BOARD)/spu.bin || { echo "prog: run make bitstream BOARD=$(BOARD) first"; exit 1; }
	iceprog $(BUILD)/fpga/$(BOARD)/spu.bin

# --- ppa ----------------------------------------------------------------------
# Entry ids NAME.DEVICE: the table's rows, plus numerics units not in it.
# The rows: the typed ones of synth/ppa_table.tsv plus the array rows generated
# from the formats table (synth/ppa_rows.sh: one per FORMATS configuration and
# board), written to $(BUILD)/ppa/table.tsv -- and each row to
# $(BUILD)/ppa/NAME.DEVICE/row.tsv -- when make reads this file, each only when
# its text changed (a row re-runs when its own row or the RTL changes).
PPA_TABLE_SRC := synth/ppa_table.tsv
PPA_FORMATS_DEF := hw/isa/spu_cfg.def
PPA_TABLE     := $(BUILD)/ppa/table.tsv
PPA_ROWS_OK   := $(shell synth/ppa_rows.sh $(PPA_TABLE_SRC) $(PPA_FORMATS_DEF) $(PPA_TABLE) $(BUILD)/ppa && echo ok)
$(if $(PPA_ROWS_OK),,$(error synth/ppa_rows.sh $(PPA_TABLE_SRC) $(PPA_FORMATS_DEF) failed (message above)))
PPA_TABLED    := $(shell awk '!/^\#/ && NF >= 4 { print $$1 "." $$3 }' $(PPA_TABLE))
PPA_TABLE_TOPS := $(shell awk '!/^\#/ && NF >= 4 && $$2 == "unit" { print $$4 }' $(PPA_TABLE))
PPA_UNLISTED  := $(filter-out $(PPA_TABLE_TOPS) spu_pipe_stage,$(basename $(notdir $(wildcard hw/rtl/numerics/*.v))))
PPA_IDS       := $(sort $(PPA_TABLED) $(foreach u,$(PPA_UNLISTED),$(u).up5k $(u).hx8k))
PPA_DIR       := $(BUILD)/ppa

# One entry never stops the others: a failing entry leaves FAILED and its log
# (and, when it failed after placement -- timing not met --, nextpnr's and
# icetime's figures in its entry).
# (row.tsv: written by synth/ppa_rows.sh above; empty for a numerics unit not in the table)
$(PPA_DIR)/%/row.tsv:
	@mkdir -p $(@D); touch $@
$(PPA_DIR)/%/done: $(SYNTH_DEPS) $(PPA_DIR)/%/row.tsv $(SYNTH_RTL) | $(SPU_PPA_BIN)
	@mkdir -p $(@D); rm -f $(@D)/entry.json $(@D)/FAILED $(@D)/nextpnr.json $(@D)/icetime.json
	@echo "[ppa] start $*"
	@if QUIET=1 PPA_TABLE=$(PPA_TABLE) synth/flow.sh entry $(basename $*) $(subst .,,$(suffix $*)) $(@D) > $(@D)/flow.log 2>&1; then \
	  echo "[ppa] done  $*"; \
	else \
	  msg=$$(grep -m1 FAIL $(@D)/flow.log || tail -n1 $(@D)/flow.log); \
	  echo "[ppa] FAIL  $*: $$msg"; touch $(@D)/FAILED; \
	  kind=$$(awk -v n=$(basename $*) '!/^#/ && $$1 == n { print $$2; exit }' $(PPA_TABLE)); \
	  st=$$(awk -v n=$(basename $*) '!/^#/ && $$1 == n && $$2 == "unit" { s = 0; for (i = 5; i <= NF; i++) if ($$i ~ /^STAGES=/) s = substr($$i, 8); print s; exit }' $(PPA_TABLE)); \
	  pnr=; [ -s $(@D)/nextpnr.json ] && pnr="--nextpnr $(@D)/nextpnr.json"; \
	  [ -s $(@D)/icetime.json ] && pnr="$$pnr --icetime $(@D)/icetime.json"; \
	  $(SPU_PPA_BIN) entry --name $(basename $*) --kind $${kind:-unit} --device $(subst .,,$(suffix $*)) \
	    $${st:+--stages $$st --latency $$st} $$pnr --status "$$msg" -o $(@D)/entry.json; \
	fi
	@touch $@

# Every unit row (ppa-numerics runs them, or its default set of them: make
# ppa's own prerequisites are the other rows). Defined before the rule: make
# expands a rule's prerequisites when it reads it.
PPA_ALL_UNIT_IDS := $(sort $(shell awk '!/^\#/ && NF >= 4 && $$2 == "unit" { print $$1 "." $$3 }' $(PPA_TABLE)) \
                       $(foreach u,$(PPA_UNLISTED),$(u).up5k $(u).hx8k))
# ppa-numerics first: its report and charts (build/ppa/numerics/) come with make ppa
# (the unit rows: the set ppa-numerics swept; PPA_FULL=1 for all)
PPA_IDS_RUN    = $(filter-out $(PPA_ALL_UNIT_IDS),$(PPA_IDS)) $(PPA_UNIT_IDS)
ppa: ppa-numerics $(addprefix $(PPA_DIR)/,$(addsuffix /done,$(filter-out $(PPA_ALL_UNIT_IDS),$(PPA_IDS))))
	@$(if $(PPA_UNLISTED),echo "ppa: not in $(PPA_TABLE) (run with default parameters): $(PPA_UNLISTED)";)
	@$(SPU_PPA_BIN) report $(PPA_DIR) $(wildcard $(addprefix $(PPA_DIR)/,$(addsuffix /entry.json,$(PPA_IDS_RUN))))
	@$(SPU_PPA_BIN) validate $(PPA_DIR)/report.json
	@# a row that does not fit its device or misses its clock is a result
	@# (kept in the report with its status); any other failure is an error
	@failed="$(notdir $(patsubst %/,%,$(dir $(wildcard $(addprefix $(PPA_DIR)/,$(addsuffix /FAILED,$(PPA_IDS_RUN)))))))"; \
	nofit=; err=; for i in $$failed; do \
	  if grep -Eq 'needs (at least )?[0-9]+ |uses [0-9.]+ [a-z]+, the |timing not met|Unable to place|only [0-9]+ available' \
	       $(PPA_DIR)/$$i/entry.json $(PPA_DIR)/$$i/flow.log 2>/dev/null; then nofit="$$nofit $$i"; else err="$$err $$i"; fi; \
	done; \
	[ -z "$$nofit" ] || echo "ppa: do not fit / miss their clock (in the report with their status):$$nofit"; \
	if [ -n "$$err" ]; then echo "ppa: failed entries (see $(PPA_DIR)/NAME/flow.log):$$err"; exit 1; fi

NEW       ?= $(PPA_DIR)/report.json
THRESHOLD ?=
ppa-diff: $(SPU_PPA_BIN)
	@test -n "$(OLD)" || { echo "ppa-diff: OLD=path/to/report.json"; exit 1; }
	$(SPU_PPA_BIN) diff $(OLD) $(NEW) $(if $(THRESHOLD),--threshold $(THRESHOLD))

# --- numerics PPA study (issue 15) --------------------------------------------
#   make ppa-numerics [-j2]  every unit row of synth/ppa_table.tsv (the depth
#                            sweep) -> build/ppa/numerics/report.{json,csv,md}
#                            and the charts build/ppa/numerics/*.{png,svg}
#   make ppa-docs            the same, then the generated table and charts
#                            into docs/numerics-rtl.md and docs/img/ppa/
#   make ppa-docs-check      the docs' generated blocks and charts against
#                            the reports (nothing re-run)
# The rows are the job list (one line per unit, params, device, depth); the
# per-row rule above is what a sweep runner would call for each.
# The set swept: synth/ppa_default.txt (every unit at its 48 MHz depth and
# neighbours, plus combinational), or every unit row with PPA_FULL=1.
PPA_DEFAULT  := synth/ppa_default.txt
PPA_DEFAULT_IDS := $(shell awk '!/^\#/ && NF { print $$1 }' $(PPA_DEFAULT))
PPA_UNIT_IDS := $(if $(filter 1,$(PPA_FULL)),$(PPA_ALL_UNIT_IDS),$(PPA_DEFAULT_IDS))
PPA_NUM_DIR  := $(PPA_DIR)/numerics
.PHONY: ppa-numerics ppa-docs
# The rows run as jobs of the sweep runner (synth/sweep/sweep.sh: RUNNER=make,
# sharing this make's job server under -jN, or RUNNER=slurm, one array task
# per row); each job is the row's rule above (synth/ppa_job.sh), so rows
# already up to date are not re-run. The runner's table: $(PPA_NUM_DIR)/sweep/.
ppa-numerics: $(SYNTH_DEPS) $(SPU_PPA_BIN)
	@missing=$$(for i in $(PPA_DEFAULT_IDS); do n=$${i%.*}; d=$${i##*.}; \
	  awk -v n=$$n -v d=$$d '!/^#/ && $$1 == n && $$3 == d { f = 1 } END { exit !f }' $(PPA_TABLE) || echo $$i; done); \
	  [ -z "$$missing" ] || { echo "ppa-numerics: $(PPA_DEFAULT) names rows not in $(PPA_TABLE): $$missing"; exit 1; }
	@mkdir -p $(PPA_NUM_DIR)
	@for i in $(PPA_UNIT_IDS); do printf '%s\tBUILD=$(BUILD) synth/ppa_job.sh %s\n' $$i $$i; done > $(PPA_NUM_DIR)/jobs.tsv
	@echo "ppa-numerics: $(words $(PPA_UNIT_IDS)) rows ($(if $(filter 1,$(PPA_FULL)),PPA_FULL=1: every unit row,$(PPA_DEFAULT); PPA_FULL=1 for all))"
	+@RUNNER=$(or $(RUNNER),make) synth/sweep/sweep.sh $(PPA_NUM_DIR)/jobs.tsv $(PPA_NUM_DIR)/sweep > $(PPA_NUM_DIR)/sweep.log 2>&1; \
	  rc=$$?; grep -E '^\[sweep\] (done|FAIL|[0-9]+ jobs)' $(PPA_NUM_DIR)/sweep.log; [ $$rc -le 1 ] || { cat $(PPA_NUM_DIR)/sweep.log; exit $$rc; }
	@# (the entries exist only now: shell tests, not $$(wildcard), which make expands before the sweep)
	@$(SPU_PPA_BIN) report $(PPA_NUM_DIR) $$(for i in $(PPA_UNIT_IDS); do f=$(PPA_DIR)/$$i/entry.json; [ -f $$f ] && echo $$f; done)
	@$(SPU_PPA_BIN) validate $(PPA_NUM_DIR)/report.json
	@synth/ppa_plots.sh $(PPA_NUM_DIR)/report.csv $(PPA_NUM_DIR)
	@failed=$$(for i in $(PPA_UNIT_IDS); do [ -f $(PPA_DIR)/$$i/FAILED ] && printf '%s ' $$i; done); \
	if [ -n "$$failed" ]; then echo "ppa-numerics: failed entries (kept in the report with their status): $$failed"; fi

ppa-docs: ppa-numerics
	@synth/ppa_docs.sh $(PPA_NUM_DIR) docs/numerics-rtl.md docs/img/ppa

# make ppa-docs-check [PPA_NUM_DIR=...]: "the documented table matches the
# report" -- the generated blocks of docs/numerics-rtl.md and its charts
# (when $(PPA_NUM_DIR)/report.csv exists: make ppa-numerics) and
# docs/fpga.md's "Formats per board" (when $(PPA_FMT_DIR)/report.csv exists:
# make ppa-formats / ppa-formats-docs), regenerated from the reports into a
# scratch copy and compared; exits non-zero on any difference, and when
# neither report exists; says which part it checked and which it skipped
# (runs nothing else, so it takes a second).
.PHONY: ppa-docs-check
ppa-docs-check:
	@t=$$(mktemp -d); trap 'rm -rf "$$t"' EXIT; rc=0; done=; skipped=; \
	if [ -f $(PPA_NUM_DIR)/report.csv ]; then \
	  cp docs/numerics-rtl.md $$t/; synth/ppa_docs.sh $(PPA_NUM_DIR) $$t/numerics-rtl.md $$t/img > /dev/null || exit 1; \
	  diff -u docs/numerics-rtl.md $$t/numerics-rtl.md || rc=1; \
	  for f in $$t/img/*; do cmp -s $$f docs/img/ppa/$${f##*/} || { echo "ppa-docs-check: docs/img/ppa/$${f##*/} differs from $(PPA_NUM_DIR)"; rc=1; }; done; \
	  done="docs/numerics-rtl.md and docs/img/ppa match $(PPA_NUM_DIR)"; \
	else skipped="docs/numerics-rtl.md (no $(PPA_NUM_DIR)/report.csv: make ppa-numerics)"; fi; \
	if [ -f $(PPA_FMT_DIR)/report.csv ]; then cp docs/fpga.md $$t/; \
	  synth/ppa_formats.sh $(PPA_TABLE) $(PPA_FMT_DIR)/report.csv $$t/fpga.md $(PPA_FORMATS_DEF) > /dev/null || exit 1; \
	  diff -u docs/fpga.md $$t/fpga.md || rc=1; \
	  done="$${done:+$$done; }docs/fpga.md matches $(PPA_FMT_DIR)"; \
	else skipped="$${skipped:+$$skipped; }docs/fpga.md (no $(PPA_FMT_DIR)/report.csv: make ppa-formats-docs)"; fi; \
	if [ -z "$$done" ]; then echo "ppa-docs-check: no PPA report to check the docs against: $$skipped"; exit 1; fi; \
	[ -z "$$skipped" ] || echo "ppa-docs-check: not checked: $$skipped"; \
	[ $$rc = 0 ] && echo "ppa-docs-check: $$done"; exit $$rc

# --- formats per board (issue 10) ------------------------------------------
#   make ppa-formats         the array rows (kind spu: one per board, array
#                            size and FORMATS; generated from hw/isa/spu_cfg.def
#                            by synth/ppa_rows.sh, plus synth/ppa_table.tsv's) ->
#                            build/ppa/formats/report.{json,csv,md} and the
#                            "Formats per board" block of docs/fpga.md
# (make ppa runs the same rows; after it, this only regenerates the docs;
#  make ppa-formats-docs regenerates them from the rows run so far)
PPA_SPU_IDS := $(shell awk '!/^\#/ && NF >= 4 && $$2 == "spu" { print $$1 "." $$3 }' $(PPA_TABLE))
PPA_FMT_DIR := $(PPA_DIR)/formats
.PHONY: ppa-formats
# make ppa-formats-docs: the same report and block from the array rows run
# so far, running none (a row without an entry shows "not run")
define PPA_FORMATS_DOCS
	@mkdir -p $(PPA_FMT_DIR)
	@$(SPU_PPA_BIN) report $(PPA_FMT_DIR) $$(for i in $(PPA_SPU_IDS); do f=$(PPA_DIR)/$$i/entry.json; [ -f $$f ] && echo $$f; done)
	@synth/ppa_formats.sh $(PPA_TABLE) $(PPA_FMT_DIR)/report.csv docs/fpga.md $(PPA_FORMATS_DEF)
endef
.PHONY: ppa-formats-docs
ppa-formats: $(addprefix $(PPA_DIR)/,$(addsuffix /done,$(PPA_SPU_IDS))) | $(SPU_PPA_BIN)
	$(PPA_FORMATS_DOCS)
ppa-formats-docs: | $(SPU_PPA_BIN)
	$(PPA_FORMATS_DOCS)

# --- probes -------------------------------------------------------------------
# Timing probes for designs not built yet (docs/fpga.md), through the board
# flow (synth/flow.sh probe): each clock's Fmax, the crossings, the system
# clock they allow, in build/probes/NAME/entry-seedN.json.
PROBES := $(basename $(notdir $(wildcard synth/probes/*.v)))
.PHONY: probe probe-spram2x
probe: $(SYNTH_DEPS) $(SPU_PPA_BIN)
	@test -n "$(filter $(PROBE),$(PROBES))" || { echo "probe: PROBE=$(PROBE): expected one of $(PROBES)"; exit 1; }
	@d=$(BUILD)/probes/$(PROBE); mkdir -p $$d; rm -f $$d/entry.json; \
	SEED=$(SEED) synth/flow.sh probe $(PROBE) up5k $$d $(if $(filter command line,$(origin CLK_MHZ)),CLK_MHZ=$(CLK_MHZ)) && \
	cp $$d/entry.json $$d/entry-seed$(SEED).json
probe-spram2x:
	@$(MAKE) --no-print-directory probe PROBE=spram_2x
