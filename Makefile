# mmci - one hand-written, non-recursive Makefile.
#
#   make            build ./mmci and the guest runner
#   make check      the fast tier: unit tests and the t-files that need no
#                   VM, kernel build or root; no setup, as any user
#   make test       set up the host (idempotent) and run every test (TAP)
#   make test-long  set up the host and run the heavy cases (tests/long/)
#   make demo       set up the host and run the main job on the defaults
#   make bench      set up the host and measure the noise settings' spread
#   make V=1        show the full compiler command lines
#   make DEVELOPER=1  -Werror and extra warnings
#   make SANITIZE=1   build with ASan + UBSan, into build-sanitize/
#                     (`make SANITIZE=1 check` tests that build)
#   make install    install ./mmci, its data files, the systemd units
#                   (PREFIX, DESTDIR, SYSTEMDUNITDIR; see below)

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS = libvirt libgit2 sqlite3 libcurl gsl jansson zlib libxml-2.0 libmicrohttpd

CFLAGS ?= -O2 -g

# pkg-config is asked when a build needs the flags, once, and not when the
# Makefile is read: `make setup` installs the packages it asks about. A
# module it does not know stops the build, named.
PKG_MISSING = $(eval PKG_MISSING := $$(shell command -v $(PKG_CONFIG) \
	>/dev/null || { echo NO-PKG-CONFIG; exit; }; for p in $(PKGS); do \
	$(PKG_CONFIG) --exists $$$$p 2>/dev/null || echo "'$$$$p'"; done))$(PKG_MISSING)
PKG_CHECK = $(if $(filter NO-PKG-CONFIG,$(PKG_MISSING)),$(error no \
	$(PKG_CONFIG) to ask for the build flags (run make setup)),$(if \
	$(PKG_MISSING),$(error missing pkg-config module$(if $(word 2,\
	$(PKG_MISSING)),s) $(PKG_MISSING) (run make setup))))
PKG_CFLAGS = $(PKG_CHECK)$(eval PKG_CFLAGS := $$(shell $(PKG_CONFIG) --cflags $(PKGS)))$(PKG_CFLAGS)
LIBS = $(PKG_CHECK)$(eval LIBS := $$(shell $(PKG_CONFIG) --libs $(PKGS)) -lm)$(LIBS)

WARN_CFLAGS = -Wall -Wextra
ifdef DEVELOPER
WARN_CFLAGS += -Werror -Wshadow -Wstrict-prototypes -Wformat=2
endif
BASIC_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARN_CFLAGS) -Wno-unused-parameter \
	-Wno-missing-field-initializers -MMD -MP -Idaemon $(PKG_CFLAGS)

# a sanitized build has objects and binaries of its own, under
# build-sanitize/, so it never mixes with (or replaces) the plain one
OUT =
ifdef SANITIZE
OUT = build-sanitize/
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
BASIC_CFLAGS += $(SANITIZE_FLAGS)
endif
ALL_LDFLAGS = $(SANITIZE_FLAGS) $(LDFLAGS)

# --timer: each file's start and duration, for the time budget (README)
PROVE_OPTS ?= -v --timer

ifneq ($(V),1)
QUIET_CC = @echo '   CC $@';
QUIET_LINK = @echo ' LINK $@';
QUIET_GEN = @echo '  GEN $@';
endif

# library modules of the mmci binary, in pipeline order
LIB_OBJS = \
	daemon/util.o daemon/strbuf.o daemon/run-command.o daemon/interrupt.o daemon/fsutil.o \
	daemon/config.o daemon/db.o daemon/schema.o \
	daemon/fetch.o daemon/mbox.o daemon/series.o daemon/ingest.o daemon/notice.o daemon/discover.o daemon/inbox.o daemon/aim.o daemon/tree.o daemon/apply.o \
	daemon/sandbox.o daemon/service-user.o daemon/build.o daemon/image.o daemon/arch.o daemon/arch-check.o daemon/domxml.o daemon/vm.o daemon/virt.o daemon/priv-wire.o daemon/priv-client.o daemon/hosts.o daemon/kvm-probe.o daemon/accel.o \
	daemon/workload.o daemon/recipe.o daemon/hostfacts.o daemon/run.o daemon/result.o daemon/profile.o daemon/stats.o daemon/compare.o \
	daemon/job.o daemon/base.o daemon/measure.o daemon/series-job.o daemon/nightly.o daemon/bisect.o daemon/attribution.o daemon/claims.o daemon/changepoint.o daemon/calibrate.o daemon/bench.o \
	daemon/report.o daemon/smtp.o daemon/bundle.o daemon/kcidb.o daemon/render.o daemon/web.o \
	daemon/remote.o

# one file per command, cmd_<name>() dispatched from daemon/mmci.c
CMD_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard daemon/cmd-*.c)))

# what this build makes: in the tree, or under build-sanitize/
MMCI_OBJS = $(addprefix $(OUT),daemon/mmci.o $(CMD_OBJS))
OUT_LIB_OBJS = $(addprefix $(OUT),$(LIB_OBJS))
UNIT_TESTS = $(patsubst %.c,$(OUT)%,$(wildcard tests/unit/test-*.c))

# the arm64 guests' runner (daemon/arch.c), when the cross compiler is
# there (make setup installs gcc-aarch64-linux-gnu); mmci names the
# package when an arm64 run finds no runner
CROSS_ARM64 ?= aarch64-linux-gnu-
ARM64_CC := $(shell command -v $(CROSS_ARM64)gcc 2>/dev/null)
RUNNERS = runner/mmci-runner $(if $(ARM64_CC),runner/mmci-runner-arm64)

all: $(OUT)mmci $(OUT)mmci-priv $(RUNNERS) runner/mmci-profile.so

$(OUT)mmci: $(MMCI_OBJS) $(OUT_LIB_OBJS)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# the root parent (daemon/priv.h): its own short list, no parser of the
# service user's input; tests/t0987 checks what it links
PRIV_OBJS = daemon/mmci-priv.o daemon/priv-wire.o daemon/domxml.o daemon/virt.o daemon/arch.o \
	daemon/strbuf.o daemon/util.o
$(OUT)mmci-priv: $(addprefix $(OUT),$(PRIV_OBJS))
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) \
		--libs libvirt)

$(OUT)daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(BASIC_CFLAGS) $(CFLAGS) -c -o $@ $<

# the schema migrations are compiled in, so an installed mmci needs no files
daemon/schema.c: $(sort $(wildcard schema/*.sql)) daemon/gen-schema.sh
	$(QUIET_GEN)sh daemon/gen-schema.sh $(sort $(wildcard schema/*.sql)) > $@+ && mv $@+ $@

# the guest runner: static, no dependencies, runs as the VM's workload.
# It takes CFLAGS, LDFLAGS and DEVELOPER's warnings, never a sanitizer
# (it runs inside the measured guests): one runner for every build.
RUNNER_SRCS = runner/mmci-runner.c runner/hotplug.c
RUNNER_FLAGS = $(filter-out -fsanitize% -fno-sanitize%,$(CFLAGS) $(LDFLAGS))
runner/mmci-runner: $(RUNNER_SRCS) runner/runner.h daemon/banned.h
	$(QUIET_CC)$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN_CFLAGS) -Idaemon \
		$(RUNNER_FLAGS) -static -o $@ $(RUNNER_SRCS)

runner/mmci-runner-arm64: $(RUNNER_SRCS) runner/runner.h daemon/banned.h
	$(QUIET_CC)$(CROSS_ARM64)gcc -std=gnu11 -D_GNU_SOURCE $(WARN_CFLAGS) \
		-Idaemon $(RUNNER_FLAGS) -static -o $@ $(RUNNER_SRCS)

# QEMU's counting plugin for profiling boots (profile.h): a host shared
# object QEMU loads with -plugin; GLib is QEMU's own library
GLIB_CFLAGS := $(shell pkg-config --cflags glib-2.0 2>/dev/null)
GLIB_LIBS := $(shell pkg-config --libs glib-2.0 2>/dev/null)
runner/mmci-profile.so: runner/qemu-profile.c
	$(QUIET_CC)$(CC) -std=gnu11 -O2 -fPIC -shared $(WARN_CFLAGS) \
		$(GLIB_CFLAGS) -o $@ $< $(GLIB_LIBS)

# (the .d files add the headers to $^: gcc would compile those alone)
$(OUT)tests/unit/test-%: tests/unit/test-%.c $(OUT_LIB_OBJS)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(BASIC_CFLAGS) $(CFLAGS) $(ALL_LDFLAGS) -o $@ \
		$(filter %.c %.o,$^) $(LIBS)

# setup installs Debian packages, so the build (whose flags come from
# pkg-config) runs after it, in a second make
setup:
	sh vm-images/host-setup.sh

# the tiers (tests/lib.sh, tests/long/README.md):
#   check      the unit tests and every t-file without a "# mmci-test-needs:"
#              line (no VM, no kernel build, no root), on this build (also
#              SANITIZE=1's); no setup, so no apt and no root
#   test       everything but tests/long/: what README says and CI runs
#   test-long  the heavy cases in tests/long/
CHECK_TESTS = $(shell grep -L '^\# mmci-test-needs:' tests/t[0-9]*.sh)
LONG_TESTS = $(wildcard tests/long/t[0-9]*.sh)

# under SANITIZE, UBSan's reports are fatal (-fno-sanitize-recover) and
# LeakSanitizer skips only the libraries' leaks in tests/lsan.supp
SANITIZE_ENV = $(if $(SANITIZE),LSAN_OPTIONS='suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0' \
	UBSAN_OPTIONS=print_stacktrace=1)

# As root the tests drop to other users, who must reach the binary and the
# project's files: the service user (mmci web, the daemon's polls), nobody
# and the build user (the build sandbox, nginx's workers), and for make
# test libvirt's QEMU user. A checkout below a directory closed to them
# (a clone in `mktemp -d`, or in /root) is said at once, with the fix;
# the tests' own files are then kept below /var/tmp (tests/lib.sh).
REACH_USERS = $${MMCI_USER:-mmci} nobody $${MMCI_BUILD_USER:-mmci-build}
define check_reach
	@[ "$$(id -u)" = 0 ] && command -v setpriv > /dev/null || exit 0; \
	closed=; d='$(CURDIR)'; while [ "$$d" != / ]; do \
		[ -n "$$(find "$$d" -maxdepth 0 -perm -o=x)" ] || \
			closed="$$d$${closed:+ $$closed}"; d=$$(dirname "$$d"); done; \
	[ -n "$$closed" ] || exit 0; \
	users=; for u in $(1); do getent passwd $$u > /dev/null || continue; \
		setpriv --reuid=$$u --regid="$$(id -g $$u)" --clear-groups \
			test -r '$(CURDIR)/web/style.css' 2>/dev/null || users="$$users $$u"; \
	done; [ -n "$$users" ] || exit 0; \
	acl=$$(echo $$users | sed 's/\([^ ]*\)/u:\1:x/g; s/ /,/g'); \
	echo "error: the tests run as root drop to the users$$users, who cannot reach this checkout:"; \
	for d in $$closed; do echo "  $$d is mode $$(stat -c %a "$$d")"; done; \
	echo "let them pass (search, not list):  setfacl -m $$acl $$closed"; \
	echo "or open it to all:                 chmod o+x $$closed"; \
	echo "or run the tests in a clone that others may enter (docs/TESTING.md)"; \
	exit 1
endef

# check builds in parallel (one job a CPU) unless make was given -j
check:
	$(call check_reach,$(REACH_USERS))
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc)) all $(UNIT_TESTS)
	MMCI_TEST_TIER=check MMCI_BIN='$(CURDIR)/$(OUT)mmci' $(SANITIZE_ENV) \
		prove $(PROVE_OPTS) -j$(TEST_JOBS) $(UNIT_TESTS) $(CHECK_TESTS)

# make test runs two lanes at once, each one file after another:
#   builds  the files that build kernels ("# mmci-test-needs:" naming
#           kernel-build): they share the checkout's kernel tree and
#           build cache, so never two at once. First those that must
#           have the host alone ("host-alone": they assert how many boots
#           mmci runs at once, which other mmci guests change).
#           Last those whose kernels the builds lane built before them
#           and that even the lanes out there ("after-builds": t0345 and
#           t0510; docs/TESTING.md has the two runs that placed them).
#   boots   every file that neither boots nor builds and the unit tests,
#           then the files that boot guests but build no kernel, last
#           those whose kernels the builds lane built before them
#           ("cached-kernels": cache hits and no-op makes; a build they
#           do anyway waits on mmci's own build lock, build.c)
# So at most two files run at a time: two guests fit the two cores, and
# mmci builds kernels at nice 10, so a guest beside a build keeps its
# core. MMCI_TEST_HOST_LOCK (tests/lib.sh) keeps the other lane's guests
# away while a host-alone file runs; with the boots lane starting with
# the files that boot nothing, that costs no wait. A file asserts only on
# what it started (docs/TESTING.md), so its neighbour does not matter.
# TEST_JOBS=1 runs everything in sequence.
TEST_JOBS ?= 2
TEST_HOST_LOCK ?= /var/tmp/mmci-test-host.lock
HEAVY_TESTS = $(shell grep -l -e '^\# mmci-test-needs:.*\(vm\|kernel-build\)' \
	-e '^test_expect_vm ' tests/t[0-9]*.sh)
ALONE_TESTS = $(shell grep -l '^\# mmci-test-needs:.*host-alone' tests/t[0-9]*.sh)
LATE_TESTS = $(shell grep -l '^\# mmci-test-needs:.*cached-kernels' tests/t[0-9]*.sh)
AFTER_TESTS = $(shell grep -l '^\# mmci-test-needs:.*after-builds' tests/t[0-9]*.sh)
KBUILD_TESTS = $(filter-out $(LATE_TESTS) $(AFTER_TESTS),\
	$(shell grep -l '^\# mmci-test-needs:.*kernel-build' tests/t[0-9]*.sh))
BUILD_TESTS = $(filter $(ALONE_TESTS),$(KBUILD_TESTS)) \
	$(filter-out $(ALONE_TESTS),$(KBUILD_TESTS)) $(AFTER_TESTS)
BOOT_TESTS = $(filter-out $(KBUILD_TESTS) $(LATE_TESTS) $(AFTER_TESTS),\
	$(HEAVY_TESTS)) $(LATE_TESTS)
OTHER_TESTS = $(filter-out $(HEAVY_TESTS),$(wildcard tests/t[0-9]*.sh)) \
	$(UNIT_TESTS)
comma := ,
empty :=
space := $(empty) $(empty)
lane = --rules='seq={$(subst $(space),$(comma),$(strip $(1)))}'
TEST_RULES = $(call lane,$(BUILD_TESTS)) \
	$(call lane,$(OTHER_TESTS) $(BOOT_TESTS))

test: setup
	$(call check_reach,$(REACH_USERS) libvirt-qemu)
	$(MAKE) all $(UNIT_TESTS)
	MMCI_TEST_HOST_LOCK='$(TEST_HOST_LOCK)' \
		prove $(PROVE_OPTS) -j$(TEST_JOBS) $(TEST_RULES) \
		$(BUILD_TESTS) $(OTHER_TESTS) $(BOOT_TESTS)

test-long: setup
	$(MAKE) all
	$(if $(LONG_TESTS),prove $(PROVE_OPTS) $(LONG_TESTS),@echo 'no long tests yet (tests/long/README.md)')

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
	sh bench/web.sh

# the web pages at 10,000 runs (bench/web.sh): rendering a finished job's
# pages, latency with 200 slow clients, 50 clients at once; loopback, no
# VM. BENCH_WEB_BEFORE=path/to/older/mmci measures that binary as well.
bench-web: all
	sh bench/web.sh

# ten series of mixed kinds into a real public-inbox at once, the daemon
# following it: arrival -> report and -> mail, on one libvirt host and on
# two (bench/throughput.sh; about an hour on 2 CPUs)
bench-throughput: setup
	$(MAKE) all
	sh bench/throughput.sh -v

clean:
	$(RM) mmci mmci-priv daemon/*.o daemon/*.d daemon/schema.c runner/mmci-runner \
		runner/mmci-runner-arm64 runner/mmci-profile.so \
		$(patsubst %.c,%,$(wildcard tests/unit/test-*.c)) tests/unit/*.d
	$(RM) -r build-sanitize

.PHONY: all setup check test test-long demo bench bench-web bench-throughput clean
-include $(OUT)daemon/*.d $(OUT)tests/unit/*.d

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
INSTALL_PROGS = $(RUNNERS) runner/mmci-profile.so vm-images/init \
	vm-images/mkinitramfs.sh
# (every fragment: `mmci reproduce` looks for a build's one by name)
INSTALL_DATA = vm-images/domain.xml.in kernel-patches/aim.map \
	$(wildcard kernel-patches/config/*.config) \
	$(wildcard kernel-patches/recipes/*.recipe) \
	runner/mmci-bench/mmci_bench.c runner/mmci-bench/Kbuild web/style.css \
	web/filter.js \
	web/nginx-mmci.conf
UNIT_FILES = mmci.service mmci-nightly.service mmci-nightly.timer \
	mmci-render.service
MMCI_CONF = $(DESTDIR)$(SYSCONFDIR)/mmci/mmci.conf

install: all
	$(INSTALL) -d '$(DESTDIR)$(MMCI_LIBDIR)' '$(DESTDIR)$(BINDIR)' \
		'$(DESTDIR)$(SYSTEMDUNITDIR)' '$(DESTDIR)$(SYSCONFDIR)/mmci'
	$(INSTALL) -m 755 $(OUT)mmci '$(DESTDIR)$(MMCI_LIBDIR)/mmci'
	$(INSTALL) -m 755 $(OUT)mmci-priv '$(DESTDIR)$(MMCI_LIBDIR)/mmci-priv'
	for f in $(INSTALL_PROGS); do \
		$(INSTALL) -D -m 755 $$f '$(DESTDIR)$(MMCI_LIBDIR)'/$$f || exit; \
	done
	for f in $(INSTALL_DATA); do \
		$(INSTALL) -D -m 644 $$f '$(DESTDIR)$(MMCI_LIBDIR)'/$$f || exit; \
	done
	ln -sfr '$(DESTDIR)$(MMCI_LIBDIR)/mmci' '$(DESTDIR)$(BINDIR)/mmci'
	ln -sfr '$(DESTDIR)$(MMCI_LIBDIR)/mmci-priv' \
		'$(DESTDIR)$(BINDIR)/mmci-priv'
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
		$(INSTALL) -m 600 systemd/mmci.conf.example '$(MMCI_CONF)'; \
	fi
	if [ -z '$(DESTDIR)' ] && [ -d '$(SYSTEMD_RUNDIR)' ]; then \
		$(SYSTEMCTL) daemon-reload; \
	fi

uninstall:
	if [ -z '$(DESTDIR)' ] && [ -d '$(SYSTEMD_RUNDIR)' ]; then \
		$(SYSTEMCTL) disable --now mmci-nightly.timer mmci.service || :; \
	fi
	$(RM) '$(DESTDIR)$(BINDIR)/mmci' '$(DESTDIR)$(MMCI_LIBDIR)/mmci' \
		'$(DESTDIR)$(BINDIR)/mmci-priv' \
		'$(DESTDIR)$(MMCI_LIBDIR)/mmci-priv'
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
