// SPDX-License-Identifier: GPL-2.0
/*
 * test-claim-step.c - the patch a claim's words name (claim_named_patch()):
 * a cover letter's "Patch 2 reduces ..." is held against patch 2's own
 * step, not against the series as a whole.
 */
#include "claims.h"
#include "tap.h"

int main(void)
{
	is_int(claim_named_patch("Patch 2 reduces the average rebind time "
				 "from 168.64 ms to 123.18 ms", 4), 2,
	       "\"Patch 2 reduces ...\"");
	is_int(claim_named_patch("after patch 3/4 the rebind takes 72 ms", 4),
	       3, "\"after patch 3/4\"");
	is_int(claim_named_patch("with patch #1 applied: 10% faster", 4), 1,
	       "\"patch #1\"");
	is_int(claim_named_patch("[PATCH 2/4] mm: 221 ms -> 72 ms", 4), 2,
	       "a subject's [PATCH 2/4]");
	is_int(claim_named_patch("after patch 3/5 it is faster", 4), 0,
	       "a total that is not the series': not this series' patch");
	is_int(claim_named_patch("patch 5 is 20% faster", 4), 0,
	       "a patch the series does not have");
	is_int(claim_named_patch("patch 0 is 20% faster", 4), 0, "patch 0");
	is_int(claim_named_patch("patches 1-2 cut it by 30%", 4), 0,
	       "\"patches\": a range is no single patch");
	is_int(claim_named_patch("patched kernel: 72 ms, 2 runs", 4), 0,
	       "\"patched\" is not \"patch\"");
	is_int(claim_named_patch("the dispatch 2 path is 20% faster", 4), 0,
	       "\"dispatch 2\" is not \"patch 2\"");
	is_int(claim_named_patch("patch 1 and patch 3 together: -40%", 4), 0,
	       "two patches named: neither");
	is_int(claim_named_patch("patch 2 and again patch 2: -40%", 4), 2,
	       "one patch named twice");
	is_int(claim_named_patch("patch 1.5 is faster by 20%", 4), 0,
	       "\"patch 1.5\"");
	is_int(claim_named_patch("With this patch: 221 ms -> 72 ms", 4), 0,
	       "\"this patch\" names no number");
	is_int(claim_named_patch("", 4), 0, "empty");
	return done_testing();
}
