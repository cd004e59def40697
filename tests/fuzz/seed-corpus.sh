#!/bin/sh
# seed-corpus.sh - fill the fuzzers' corpus directories from the mail
# fixtures. Run from the project root (`make fuzz` does); idempotent: the
# seeds have fixed names, so a second run rewrites the same files, and the
# inputs libFuzzer added (named by their SHA-1) are kept.
#
#   tests/fuzz/corpus/mbox/    every fixture up to 64 KiB whole, and each
#                              mail of every fixture alone (small seeds
#                              mutate faster)
#   tests/fuzz/corpus/header/  header values of the fixtures, prefixed
#                              with the byte that picks fuzz-header's
#                              decoder, and a few hand-written ones
#
# The fixtures are our own mails, tests/fixtures/mbox, and the real ones
# of $MMCI_FIXTURES (default ../shared/fixtures/mbox) when they are there;
# they are only read.
set -eu

shared=${MMCI_FIXTURES:-../shared/fixtures/mbox}
corpus=tests/fuzz/corpus

say() { echo "seed-corpus: $*"; }

mkdir -p "$corpus/mbox" "$corpus/header"

# a minimal patch mail, so a missing fixtures directory still seeds a series
printf '%s\n' 'From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001' \
	'From: A U Thor <a@b.c>' 'Date: Sun, 21 Feb 2021 12:29:31 +0100' \
	'Subject: [PATCH v2 1/1] mm: x' 'Message-ID: <1@b.c>' '' 'Body.' '' \
	'Signed-off-by: A U Thor <a@b.c>' '---' \
	'diff --git a/x b/x' '--- a/x' '+++ b/x' '@@ -1 +1 @@' '-a' '+b' \
	'-- ' '2.40.0' > "$corpus/mbox/seed-minimal"
printf '\000=?UTF-8?B?w6k=?= =?iso-8859-1?q?caf=E9?=' > "$corpus/header/seed-rfc2047"
printf '\001"Doe, John" <jd@x.org>' > "$corpus/header/seed-address"
printf '\002Sun, 21 Feb 2021 12:29:31 +0100 (CET)' > "$corpus/header/seed-date"
printf '\003Re: [RFC PATCH net-next v2 3/7] mm: x' > "$corpus/header/seed-subject"
printf '\004ISO-2022-JP\n\033$B5HF#\033(B' > "$corpus/header/seed-charset"
printf '\005text\n--- a/x\n+++ b/x\n' > "$corpus/header/seed-patch"

# seed_from DIR PREFIX: the seeds of every mail file under DIR
seed_from() {
	fixtures=$1
	n=0
	for f in $(cd "$fixtures" && find . -type f \( -name '*.mbox' -o \
			-name '*.mboxrd' -o -name '*.eml' \) | sort); do
		name=$2$(echo "${f#./}" | tr '/+' '__')
		# whole threads seed series assembly; the two biggest (158 and
		# 174 KB) would drag every mutation of theirs down to ~400
		# execs/s
		if [ "$(wc -c < "$fixtures/$f")" -le 65536 ]; then
			cp "$fixtures/$f" "$corpus/mbox/seed-$name"
		fi
		# each mail alone, "From " line included
		awk -v out="$corpus/mbox/seed-$name-mail" '
			/^From .*[0-9]:[0-9][0-9].*[0-9][0-9][0-9][0-9]/ {
				if (file) close(file)
				file = sprintf("%s%03d", out, ++k)
			}
			file { print > file }
		' "$fixtures/$f"
		# header values, one seed per field and decoder
		awk -v out="$corpus/header/seed-$name-" '
			function seed(byte, text) {
				file = sprintf("%s%04d", out, ++k)
				printf "%c%s", byte, text > file
				close(file)
			}
			/^$/ { body = 1 }
			/^From .*[0-9]:[0-9][0-9]/ { body = 0; next }
			body { next }
			sub(/^[Ss]ubject: */, "") { seed(0, $0); seed(3, $0); next }
			sub(/^(From|To|Cc): */, "") { seed(1, $0); next }
			sub(/^Date: */, "") { seed(2, $0); next }
		' "$fixtures/$f"
		n=$((n + 1))
	done
	say "seeded from $n fixtures in '$fixtures'"
}

seed_from tests/fixtures/mbox ours_
if [ -d "$shared" ]; then
	seed_from "$shared" ""
else
	say "no real mails at '$shared' (set MMCI_FIXTURES): our own only" >&2
fi
say "the corpus holds $(ls "$corpus/mbox" | wc -l) mbox and" \
	"$(ls "$corpus/header" | wc -l) header inputs"
