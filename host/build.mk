# host/build.mk -- libspu (static + shared), the CLI `spu`, generated headers,
# firmware assembled at build time, pkg-config file and install.

HOST_SRC_DIRS := $(sort $(dir $(wildcard host/src/*/*.c)))
LIBSPU_SRCS   := $(wildcard host/src/*/*.c)
FIRMWARE_SRCS := $(wildcard firmware/*.s)
FIRMWARE_GEN  := $(patsubst firmware/%.s,$(BUILD)/gen/fw_%.c,$(FIRMWARE_SRCS))
LIBSPU_OBJS   := $(patsubst host/%.c,$(BUILD)/obj/%.o,$(LIBSPU_SRCS)) \
                 $(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(FIRMWARE_GEN))
CLI_SRCS      := $(wildcard host/cli/*.c)
CLI_OBJS      := $(patsubst host/%.c,$(BUILD)/obj/%.o,$(CLI_SRCS))
ISA_DEFS      := $(wildcard hw/isa/*.def)
GEN_HEADERS   := $(BUILD)/gen/spu_isa.vh $(BUILD)/gen/spu_firmware.h

# Extra link libraries libspu needs (fragments may append, e.g. -lftdi1).
LIBSPU_LIBS   += -lm -lutil -lpthread -lcjson
LIBSPU_LIBS   += -lz   # host/src/runtime: the idx (.gz) reader
# USB transports (host/src/link/backend_ftdi.c, backend_usb.c): always built.
LIBSPU_LIBS   += $(shell pkg-config --libs libftdi1 libusb-1.0 2>/dev/null || echo -lftdi1 -lusb-1.0)
INCLUDES      += $(shell pkg-config --cflags-only-I libftdi1 libusb-1.0 2>/dev/null || echo -I/usr/include/libftdi1 -I/usr/include/libusb-1.0)

LIBSPU_A  := $(BUILD)/lib/libspu.a
LIBSPU_SO := $(BUILD)/lib/libspu.so
SPU_BIN   := $(BUILD)/bin/spu

all: $(SPU_BIN) $(LIBSPU_A) $(LIBSPU_SO) $(BUILD)/lib/pkgconfig/spu.pc $(GEN_HEADERS)

# --- generators -------------------------------------------------------------
# spu_gen: prints the Verilog include and the firmware table from hw/isa/*.def
# and the assembled firmware. It is built from the assembler sources only, so
# the firmware can be assembled before libspu exists.
GEN_TOOL_SRCS := host/tools/spu_gen.c $(wildcard host/src/isa/*.c) $(wildcard host/src/asm/*.c) host/src/core/error.c
$(BUILD)/tools/spu_gen: $(GEN_TOOL_SRCS) $(ISA_DEFS) $(wildcard host/include/spu/*.h host/src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(INCLUDES) -o $@ $(GEN_TOOL_SRCS) -lm

# Replaced only when its text changes: every Verilated model depends on it,
# and spu_gen is rebuilt whenever any host header changes.
$(BUILD)/gen/spu_isa.vh: $(BUILD)/tools/spu_gen $(ISA_DEFS)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/spu_gen verilog > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/gen/fw_%.c: firmware/%.s $(BUILD)/tools/spu_gen
	@mkdir -p $(dir $@)
	$(BUILD)/tools/spu_gen firmware $< $* > $@.tmp && mv $@.tmp $@

# keep the generated firmware sources (make would delete them as intermediates)
.SECONDARY: $(FIRMWARE_GEN)

$(BUILD)/gen/spu_firmware.h: $(BUILD)/tools/spu_gen $(FIRMWARE_SRCS)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/spu_gen firmware-header $(basename $(notdir $(FIRMWARE_SRCS))) > $@.tmp && mv $@.tmp $@

# --- objects ------------------------------------------------------------------
$(BUILD)/obj/%.o: host/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(HOST_CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(INCLUDES) -c -o $@ $<

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d)

$(LIBSPU_A): $(LIBSPU_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBSPU_SO): $(LIBSPU_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libspu.so.$(SPU_SOVERSION) -o $@ $^ $(LIBSPU_LIBS)

$(SPU_BIN): $(CLI_OBJS) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CLI_OBJS) $(LIBSPU_A) $(LIBSPU_LIBS)

SPU_SOVERSION := 0
$(BUILD)/lib/pkgconfig/spu.pc: host/spu.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBS@|$(LIBSPU_LIBS)|' $< > $@

# --- install -----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/include/spu $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 host/include/spu/*.h $(DESTDIR)$(PREFIX)/include/spu/
	install -m 644 hw/isa/*.def $(DESTDIR)$(PREFIX)/include/spu/
	install -m 644 $(LIBSPU_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBSPU_SO) $(DESTDIR)$(PREFIX)/lib/libspu.so.$(SPU_SOVERSION)
	ln -sf libspu.so.$(SPU_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libspu.so
	install -m 755 $(SPU_BIN) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBS@|$(LIBSPU_LIBS)|' host/spu.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/spu.pc
	install -d $(DESTDIR)$(UDEV_RULES_DIR)
	install -m 644 host/udev/99-spu.rules $(DESTDIR)$(UDEV_RULES_DIR)/

# udev rules for the boards' USB bridges (host/udev/99-spu.rules). udev reads
# /usr/lib/udev/rules.d and /etc/udev/rules.d: with PREFIX=/usr the default is
# right; otherwise pass UDEV_RULES_DIR=/etc/udev/rules.d (docs/usb.md).
UDEV_RULES_DIR ?= $(PREFIX)/lib/udev/rules.d
