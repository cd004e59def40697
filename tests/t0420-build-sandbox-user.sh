#!/bin/sh
# t0420-build-sandbox-user: mmci runs as root, a series' Makefile reads
# /etc/shadow and writes beside the object directory. Through the real
# build path (mmci build, its sandbox, as the build user): reading
# /etc/shadow says permission denied and leaks nothing, the write fails,
# what the build wrote belongs to the build user. The tree is a stand-in
# (one Makefile, no kernel): no kernel is built.
# mmci-test-needs: root
. "$(dirname "$0")/lib.sh"

# the data directory not below /tmp: the sandbox's private /tmp would
# take the write beside the object directory
test_sandbox_data

git init -q tree
cat > tree/Makefile <<'EOF'
tinyconfig:
	-cat /etc/shadow > $(O)/leak
	-touch $(O)/../escaped
	@echo "error: stand-in tree, not a kernel"; exit 1
EOF
git -C tree add Makefile
git -C tree -c user.email=t@example.org -c user.name=t commit -q -m hostile

test_expect 'a hostile Makefile: /etc/shadow is not readable, one error' '
	set +e; MMCI_TREE="$TRASH/tree" "$MMCI" build HEAD > out 2> err; rc=$?
	set -e
	cat err
	[ $rc = 1 ] &&
	grep -q "error: kernel build failed at .make tinyconfig. (exit 2): error: stand-in tree, not a kernel: see .*/build.log" err &&
	log=$(sql "SELECT log_path FROM builds WHERE id = 1") &&
	grep -q "sandbox: bwrap, no network, user $user$" "$log" &&
	grep -q "^cat: /etc/shadow: Permission denied$" "$log" &&
	grep -q "^touch: cannot touch .*/kbuild/[0-9a-f]*/\.\./escaped.: Read-only file system$" "$log" &&
	[ "$(sql "SELECT status FROM builds WHERE id = 1")" = failed ]
'

test_expect 'nothing leaked or escaped; the build user owns what it wrote' '
	leak=$(echo "$MMCI_DATA"/kbuild/*/leak) &&
	[ -f "$leak" ] && [ ! -s "$leak" ] &&
	[ "$(stat -c %U "$leak")" = "$user" ] &&
	[ "$(stat -c %U "$(dirname "$leak")")" = "$user" ] &&
	[ ! -e "$MMCI_DATA/kbuild/escaped" ] &&
	[ "$(stat -c %U "$MMCI_DATA/kbuild")" = root ]
'

test_done
