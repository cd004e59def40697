#!/bin/sh
# t0430-build-shared-cache: the artifacts directory of a build is named by
# its cache key and stamped (mmci-build.txt) when the build succeeded, so
# a second database on the same data directory takes the build instead of
# making it again: the test suite's files share their kernels this way
# (docs/TESTING.md), as would a database restored from a backup. A stamp
# that does not match what is there, a missing stamp, and a build that
# fails half-way (its stamp is removed before it starts) mean building.
# The tree is a stand-in (a Makefile and a merge script, no kernel): each
# "make bzImage" appends a line to made/count in the object directory, so
# the test counts real builds.
# mmci-test-needs: root
. "$(dirname "$0")/lib.sh"

test_sandbox_data
export MMCI_TREE="$TRASH/tree"

git init -q tree
mkdir -p tree/scripts/kconfig tree/kernel/configs
# merge_config.sh -m -O OBJDIR BASE FRAGMENT...: the fragments appended
cat > tree/scripts/kconfig/merge_config.sh <<'EOF2'
#!/bin/sh
out=$3
shift 4
cat "$@" >> "$out/.config"
EOF2
echo 'CONFIG_KVM_GUEST=y' > tree/kernel/configs/kvm_guest.config
cat > tree/Makefile <<'EOF2'
tinyconfig:
	echo '# stand-in' > $(O)/.config
olddefconfig:
	@true
bzImage:
	test ! -e $(O)/fail
	mkdir -p $(O)/arch/x86/boot $(O)/include/config $(O)/made
	echo image > $(O)/arch/x86/boot/bzImage
	echo 6.12.0-standin > $(O)/include/config/kernel.release
	echo built >> $(O)/made/count
modules:
	@true
modules_install:
	mkdir -p $(INSTALL_MOD_PATH)/lib/modules/6.12.0-standin
EOF2
git -C tree add .
git -C tree -c user.email=t@example.org -c user.name=t commit -q -m stand-in
printf 'CONFIG_HZ=250\nCONFIG_MMCI_STANDIN=y\n' > frag.config

# build DB: mmci build HEAD into database DB; its output in DB.out/.err
build() {
	MMCI_DB="$TRASH/$1.db" "$MMCI" build HEAD --config "$TRASH/frag.config" \
		> "$1.out" 2> "$1.err"
}
made() { cat "$MMCI_DATA"/kbuild/*/made/count 2>/dev/null | wc -l; }
key() { MMCI_DB="$TRASH/$1.db" sql "SELECT cache_key FROM builds WHERE id = 1"; }
stamp() { echo "$MMCI_DATA/cache/$(key a)/mmci-build.txt"; }

test_expect 'the first database builds; the build is stamped with its key' '
	build a || { cat a.err; false; }
	[ "$(made)" = 1 ] &&
	grep -qx "key $(key a)" "$(stamp)" &&
	grep -qx "release 6.12.0-standin" "$(stamp)" &&
	grep -qx "hz 250" "$(stamp)"
'

test_expect 'a second database on the data directory takes it: nothing is made' '
	build b || { cat b.err; false; }
	cat b.err
	[ "$(made)" = 1 ] &&
	grep -q "built before in this data directory, taken from its cache (build #1)" b.err &&
	[ "$(key b)" = "$(key a)" ] &&
	MMCI_DB="$TRASH/b.db" sql "SELECT status, kernel_release, hz, duration_s,
	    artifacts = \"$MMCI_DATA/cache/$(key a)\" FROM builds" > row &&
	[ "$(cat row)" = "ok|6.12.0-standin|250|0.0|1" ] &&
	MMCI_DB="$TRASH/b.db" "$MMCI" show builds > show.b &&
	MMCI_DB="$TRASH/a.db" "$MMCI" show builds > show.a && cat show.b &&
	grep -q "taken from the cache" show.b && ! grep -q "taken" show.a &&
	grep -q "built" show.a &&
	# the .config and the fragment, for its bundles
	[ "$(MMCI_DB="$TRASH/b.db" sql "SELECT count(*) FROM texts t JOIN builds b
	     ON t.sha1 IN (b.dotconfig_hash, b.config_hash)")" = 2 ]
'

test_expect 'a stamp that does not match the artifacts: built again, stamped again' '
	echo "CONFIG_CHANGED=y" >> "$MMCI_DATA/cache/$(key a)/config" &&
	build c && cat c.err &&
	grep -q "the stamp in .* does not match what is there: building again" c.err &&
	[ "$(made)" = 2 ] &&
	build c2 && [ "$(made)" = 2 ]
'

test_expect 'no stamp: built again' '
	rm "$(stamp)" &&
	build d && [ "$(made)" = 3 ] && [ -f "$(stamp)" ]
'

test_expect 'a build that fails half-way leaves no stamp behind' '
	echo "CONFIG_CHANGED=y" >> "$MMCI_DATA/cache/$(key a)/config" &&
	for d in "$MMCI_DATA"/kbuild/*/made; do touch "$d/../fail"; done &&
	! build e && cat e.err &&
	[ ! -e "$(stamp)" ] &&
	[ "$(MMCI_DB="$TRASH/e.db" sql "SELECT status FROM builds")" = failed ] &&
	rm "$MMCI_DATA"/kbuild/*/fail &&
	build f && [ "$(made)" = 4 ] && [ -f "$(stamp)" ] &&
	build g && [ "$(made)" = 4 ]
'

# git on the stand-in tree, as its author
gt() { git -C tree -c user.email=t@example.org -c user.name=t "$@"; }

test_expect 'a commit of Documentation/ only: its own row, the same kernel, nothing made' '
	mkdir -p tree/Documentation/mm && echo "a page" > tree/Documentation/mm/page.rst &&
	gt add . && gt commit -q -m "Documentation/mm: a page" &&
	build g && cat g.err &&
	[ "$(made)" = 4 ] &&
	grep -q "only Documentation/ differs from build #1.s commit: its kernel, recorded as build #2" g.err &&
	MMCI_DB="$TRASH/g.db" sql "SELECT id, commit_id, cache_key, artifacts,
	    duration_s, status FROM builds ORDER BY id" > rows && cat rows &&
	[ "$(cut -d"|" -f2 rows | sort -u | wc -l)" = 2 ] &&
	[ "$(sed -n 2p rows | cut -d"|" -f2)" = "$(git -C tree rev-parse HEAD)" ] &&
	[ "$(cut -d"|" -f3,4 rows | sort -u | wc -l)" = 1 ] &&
	[ "$(sed -n 2p rows | cut -d"|" -f5,6)" = "0.0|ok" ] &&
	# asked again: that row, no third
	build g && [ "$(MMCI_DB="$TRASH/g.db" sql "SELECT count(*) FROM builds")" = 2 ] &&
	grep -q "cached (build #2)" g.err
'

test_expect 'Documentation/Kconfig changed: another key, built' '
	echo "config WARN_MISSING_DOCUMENTS" > tree/Documentation/Kconfig &&
	gt add . && gt commit -q -m "Documentation: Kconfig" &&
	build g && [ "$(made)" = 5 ] &&
	[ "$(MMCI_DB="$TRASH/g.db" sql "SELECT count(DISTINCT cache_key) FROM builds")" = 2 ]
'

test_done
