# models/build.mk -- the trained Fashion-MNIST networks of `spu infer`
# (docs/runtime.md).
#   make weights      retrain the three models (fp32, PyTorch on 1 CPU thread)
#                     and rewrite models/<name>/graph.json + .npy
#   make run-infer    short demo on sim: each model in int8 and e4m3 on a few
#                     test images, bit-exact against the model
#   make infer-table  regenerate README's / docs/runtime.md's networks tables
# The test data is Debian's dataset-fashion-mnist.

DEBS += dataset-fashion-mnist
# only `make weights` needs these (PyTorch with OpenBLAS; Debian's default
# reference BLAS makes training ~10x slower)
WEIGHTS_DEBS := python3-torch python3-numpy libopenblas0-serial
WEIGHTS_ENV  := LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-serial OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# images per model and the formats: make run's short table on sim (every
# line checked bit for bit against the model)
RUN_INFER_IMAGES ?= fmnist-mlp:16 fmnist-cnn:4 fmnist-vit:4
RUN_INFER_FORMATS ?= int8 e4m3

.PHONY: weights run-infer
weights: deps
	@$(MAKE) --no-print-directory deps DEBS="$(WEIGHTS_DEBS)"
	$(WEIGHTS_ENV) /usr/bin/python3 models/train.py --out models

run-infer: deps all
	@for mi in $(RUN_INFER_IMAGES); do for f in $(RUN_INFER_FORMATS); do \
	  $(BUILD)/bin/spu infer --model $${mi%%:*} --format $$f --device $(RUN_DEVICE) --images $${mi##*:} --brief || exit 1; \
	done; done

# make infer-table: rewrite README.md's networks table (the infer-table
# marked region) from `spu infer --json` runs: every model x format on the
# full test set on `model`, link bytes (and bit-exactness) on `sim` over
# INFER_TABLE_SIM_IMAGES images. Slow (tens of minutes on 2 cores): a
# docs target, not CI.
INFER_TABLE_SIM_IMAGES ?= 64
.PHONY: infer-table
infer-table: deps all
	/usr/bin/python3 models/infer_table.py --spu $(BUILD)/bin/spu --readme README.md \
	  --sim-images $(INFER_TABLE_SIM_IMAGES) --out $(BUILD)/infer-table
