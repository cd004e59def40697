# mmci - one hand-written, non-recursive Makefile.
#
#   make            build ./mmci and the guest runner
#   make test       set up the host (idempotent) and run every test (TAP)
#   make demo       set up the host and run the main job on the defaults
#   make bench      set up the host and measure the noise settings' spread
#   make V=1        show the full compiler command lines
#   make DEVELOPER=1  -Werror and extra warnings
#   make SANITIZE=1   build with ASan + UBSan
#   make install    install ./mmci, its data files, the systemd units
#                   (PREFIX, DESTDIR, SYSTEMDUNITDIR; see below)

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
	daemon/sandbox.o daemon/build.o daemon/image.o daemon/vm.o daemon/kvm-probe.o daemon/accel.o \
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

# make install: the binary and every file it reads at run time go to
# $(MMCI_LIBDIR), with a symlink in $(BINDIR). config.c looks for its data
# in the directory of /proc/self/exe, which the kernel gives with symlinks
# resolved, so the installed mmci needs no MMCI_PROJECT. Then the units
# (@BINDIR@ and @SYSCONFDIR@ filled in) and the settings file, only when
# there is none. DESTDIR stages it all elsewhere (packages, the tests) and
# never runs systemctl; without DESTDIR, systemctl daemon-reload runs when
# systemd is PID 1 (SYSTEMD_RUNDIR exists, as sd_booted() checks).
# Units go to $(PREFIX)/lib/systemd/system, which systemd searches for
# PREFIX=/usr/local and /usr, and which leaves /etc/systemd/system to the
# admin's overrides; for another PREFIX set SYSTEMDUNITDIR=/etc/systemd/system.
# make uninstall removes what install put there, except a settings file
# that was changed, and never /var/lib/mmci (the database and the data).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MMCI_LIBDIR ?= $(PREFIX)/lib/mmci
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSTEMD_RUNDIR ?= /run/systemd/system
SYSTEMCTL ?= systemctl
INSTALL ?= install

# what mmci reads through project_path() and cfg->project_dir
INSTALL_PROGS = runner/mmci-runner vm-images/init vm-images/mkinitramfs.sh
# (every fragment: `mmci reproduce` looks for a build's one by name)
INSTALL_DATA = vm-images/domain.xml.in \
	$(wildcard kernel-patches/config/*.config) \
	runner/mmci-bench/mmci_bench.c runner/mmci-bench/Kbuild web/style.css
UNIT_FILES = mmci.service mmci-nightly.service mmci-nightly.timer
MMCI_CONF = $(DESTDIR)$(SYSCONFDIR)/mmci/mmci.conf

install: all
	$(INSTALL) -d '$(DESTDIR)$(MMCI_LIBDIR)' '$(DESTDIR)$(BINDIR)' \
		'$(DESTDIR)$(SYSTEMDUNITDIR)' '$(DESTDIR)$(SYSCONFDIR)/mmci'
	$(INSTALL) -m 755 mmci '$(DESTDIR)$(MMCI_LIBDIR)/mmci'
	for f in $(INSTALL_PROGS); do \
		$(INSTALL) -D -m 755 $$f '$(DESTDIR)$(MMCI_LIBDIR)'/$$f || exit; \
	done
	for f in $(INSTALL_DATA); do \
		$(INSTALL) -D -m 644 $$f '$(DESTDIR)$(MMCI_LIBDIR)'/$$f || exit; \
	done
	ln -sfr '$(DESTDIR)$(MMCI_LIBDIR)/mmci' '$(DESTDIR)$(BINDIR)/mmci'
	for u in $(UNIT_FILES); do \
		sed -e 's|@BINDIR@|$(BINDIR)|g' \
		    -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' systemd/$$u \
			> '$(DESTDIR)$(SYSTEMDUNITDIR)'/$$u+ && \
		chmod 644 '$(DESTDIR)$(SYSTEMDUNITDIR)'/$$u+ && \
		mv '$(DESTDIR)$(SYSTEMDUNITDIR)'/$$u+ \
			'$(DESTDIR)$(SYSTEMDUNITDIR)'/$$u || exit; \
	done
	if [ -e '$(MMCI_CONF)' ]; then \
		echo 'keeping $(MMCI_CONF)'; \
	else \
		$(INSTALL) -m 640 systemd/mmci.conf.example '$(MMCI_CONF)'; \
	fi
	if [ -z '$(DESTDIR)' ] && [ -d '$(SYSTEMD_RUNDIR)' ]; then \
		$(SYSTEMCTL) daemon-reload; \
	fi

uninstall:
	if [ -z '$(DESTDIR)' ] && [ -d '$(SYSTEMD_RUNDIR)' ]; then \
		$(SYSTEMCTL) disable --now mmci-nightly.timer mmci.service || :; \
	fi
	$(RM) '$(DESTDIR)$(BINDIR)/mmci' '$(DESTDIR)$(MMCI_LIBDIR)/mmci'
	for f in $(INSTALL_PROGS) $(INSTALL_DATA); do \
		$(RM) '$(DESTDIR)$(MMCI_LIBDIR)'/$$f; \
	done
	for u in $(UNIT_FILES); do $(RM) '$(DESTDIR)$(SYSTEMDUNITDIR)'/$$u; done
	if cmp -s systemd/mmci.conf.example '$(MMCI_CONF)'; then \
		$(RM) '$(MMCI_CONF)'; \
	elif [ -e '$(MMCI_CONF)' ]; then \
		echo 'keeping $(MMCI_CONF): it was changed'; \
	fi
	if [ -d '$(DESTDIR)$(MMCI_LIBDIR)' ]; then \
		find '$(DESTDIR)$(MMCI_LIBDIR)' -depth -type d -empty -delete; \
	fi
	rmdir '$(DESTDIR)$(SYSCONFDIR)/mmci' 2>/dev/null || :
	if [ -z '$(DESTDIR)' ] && [ -d '$(SYSTEMD_RUNDIR)' ]; then \
		$(SYSTEMCTL) daemon-reload; \
	fi

.PHONY: install uninstall

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
