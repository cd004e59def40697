# mmci - one hand-written, non-recursive Makefile.
#
#   make            build ./mmci and the guest runner
#   make test       set up the host (idempotent) and run every test (TAP)
#   make demo       set up the host and run the main job on the defaults
#   make bench      set up the host and measure the noise settings' spread
#   make V=1        show the full compiler command lines
#   make DEVELOPER=1  -Werror and extra warnings
#   make SANITIZE=1   build with ASan + UBSan

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS = libvirt libgit2 sqlite3 libcurl gsl jansson zlib libxml-2.0 libmicrohttpd

CFLAGS ?= -O2 -g
BASIC_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -MMD -MP -Idaemon \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm

ifdef DEVELOPER
BASIC_CFLAGS += -Werror -Wshadow -Wstrict-prototypes -Wformat=2
endif
ifdef SANITIZE
BASIC_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

PROVE_OPTS ?= -v

ifneq ($(V),1)
QUIET_CC = @echo '   CC $@';
QUIET_LINK = @echo ' LINK $@';
QUIET_GEN = @echo '  GEN $@';
endif

# library modules of the mmci binary, in pipeline order
LIB_OBJS = \
	daemon/util.o daemon/strbuf.o daemon/run-command.o daemon/fsutil.o \
	daemon/config.o daemon/db.o daemon/schema.o \
	daemon/fetch.o daemon/mbox.o daemon/series.o daemon/ingest.o daemon/notice.o daemon/discover.o daemon/tree.o daemon/apply.o \
	daemon/sandbox.o daemon/build.o daemon/image.o daemon/vm.o daemon/kvm-probe.o \
	daemon/workload.o daemon/run.o daemon/result.o daemon/stats.o daemon/compare.o \
	daemon/job.o daemon/measure.o daemon/attribution.o daemon/claims.o daemon/changepoint.o daemon/calibrate.o \
	daemon/report.o daemon/smtp.o daemon/web.o \
	daemon/remote.o

# one file per command, cmd_<name>() dispatched from daemon/mmci.c
CMD_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard daemon/cmd-*.c)))

UNIT_TESTS = $(patsubst %.c,%,$(wildcard tests/unit/test-*.c))

all: mmci runner/mmci-runner

mmci: daemon/mmci.o $(CMD_OBJS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

daemon/%.o: daemon/%.c
	$(QUIET_CC)$(CC) $(BASIC_CFLAGS) $(CFLAGS) -c -o $@ $<

# the schema migrations are compiled in, so an installed mmci needs no files
daemon/schema.c: $(sort $(wildcard schema/*.sql)) daemon/gen-schema.sh
	$(QUIET_GEN)sh daemon/gen-schema.sh $(sort $(wildcard schema/*.sql)) > $@+ && mv $@+ $@

# the guest runner: static, no dependencies, runs as the VM's workload
RUNNER_SRCS = runner/mmci-runner.c runner/hotplug.c
runner/mmci-runner: $(RUNNER_SRCS) runner/runner.h daemon/banned.h
	$(QUIET_CC)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Idaemon -static -o $@ $(RUNNER_SRCS)

tests/unit/test-%: tests/unit/test-%.c $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(BASIC_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# setup installs Debian packages, so the build (whose flags come from
# pkg-config) runs after it, in a second make
setup:
	sh vm-images/host-setup.sh

test: setup
	$(MAKE) all $(UNIT_TESTS)
	prove $(PROVE_OPTS) $(UNIT_TESTS) tests/t[0-9]*.sh

demo: setup
	$(MAKE) all
	./mmci init
	./mmci test-series kernel-patches/examples/memmap-slow.mbox --base debian-6.12

# every workload, 12 boots per noise setting (icount and wall; add
# wall-pin,wall-disk for the whole noise matrix) on the newest Debian cloud
# kernel, then the A/A calibration of the verdicts on those boots: the
# false-alarm rate and the detection of +5 % and +10 % (bench/README.md).
# 12 boots because a calibration split needs 2 x 6 (the wall default).
# BENCH_ARGS replaces all of it, MMCI_DB picks the database.
BENCH_KERNEL = $(shell ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)
BENCH_ARGS ?= --kernel $(BENCH_KERNEL) --nvdimm 16G --iters 10 --boots 12 \
	--settings icount,wall

bench: setup
	$(MAKE) all
	./mmci bench $(BENCH_ARGS)

clean:
	$(RM) mmci daemon/*.o daemon/*.d daemon/schema.c runner/mmci-runner \
		$(UNIT_TESTS) tests/unit/*.d

.PHONY: all setup test demo bench clean
-include daemon/*.d tests/unit/*.d

# libFuzzer targets for the mail parser (tests/fuzz/README.md). The parser
# needs no database, libgit2 or jansson: four objects and libc's iconv,
# built again with coverage and ASan + UBSan into tests/fuzz/obj/.
#   make fuzz                  replay tests/fuzz/regressions, then fuzz
#   make fuzz FUZZ_SECONDS=60  (default 600 for fuzz-mbox; see run.sh)
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 -D_GNU_SOURCE -g -O1 -Wall -Wextra \
	-Wno-unused-parameter -Wno-missing-field-initializers -MMD -MP \
	-Idaemon $(FUZZ_SANITIZE)
FUZZ_OBJS = $(addprefix tests/fuzz/obj/,util.o strbuf.o mbox.o series.o)
FUZZ_PROGS = tests/fuzz/fuzz-mbox tests/fuzz/fuzz-header

tests/fuzz/obj/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_OBJS)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c %.o,$^)

fuzz: $(FUZZ_PROGS)
	sh tests/fuzz/seed-corpus.sh
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh

fuzz-clean:
	$(RM) -r $(FUZZ_PROGS) tests/fuzz/*.d tests/fuzz/obj

# the objects are no intermediates to delete after the link
.SECONDARY: $(FUZZ_OBJS)
.PHONY: fuzz fuzz-clean
-include tests/fuzz/*.d tests/fuzz/obj/*.d
