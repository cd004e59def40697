// SPDX-License-Identifier: GPL-2.0
/*
 * test-hostfacts.c - the host facts a run records (hostfacts.h): the CPU
 * of /proc/cpuinfo on x86 and arm64, the JSON round trip, and which
 * differences make two wall-clock runs incomparable.
 */
#include <stdlib.h>
#include <sys/utsname.h>

#include "hostfacts.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

int main(void)
{
	struct host_facts a, b, c;
	struct strbuf sb = STRBUF_INIT;
	struct utsname u;
	char *json;

	memset(&a, 0, sizeof(a));
	host_facts_parse_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
				 "model name\t: AMD EPYC 7B13 64-Core Processor  \n"
				 "microcode\t: 0xa0011d1\n\nprocessor\t: 1\n"
				 "model name\t: other\n", &a);
	is_str(a.cpu, "AMD EPYC 7B13 64-Core Processor",
	       "x86: the first CPU's model name, trailing blanks cut");
	is_str(a.microcode, "0xa0011d1", "x86: its microcode");
	memset(&b, 0, sizeof(b));
	host_facts_parse_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n"
				 "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n",
				 &b);
	is_str(b.cpu, "arm 0x41/0xd0c", "arm64: implementer and part");
	is_str(b.microcode, "", "arm64: no microcode");

	host_facts_read(&c);
	uname(&u);
	is_str(c.kernel, u.release, "this host's kernel");
	ok(*c.cpu, "this host's CPU has a name");
	ok(c.guests >= 0 && c.load1 >= 0, "load and guests read");

	json = host_facts_json(&a);
	is_int(host_facts_from_json(json, &b), 0, "JSON round trip");
	is_str(b.cpu, a.cpu, "the CPU back");
	is_int(host_facts_differ(&a, &b, &sb), 0, "the same facts differ in "
	       "nothing");
	free(json);
	b.load1 = 7.5;
	b.guests = 3;
	is_int(host_facts_differ(&a, &b, &sb), 0, "load and guests are no "
	       "difference of set-up (they are notes)");
	xsnprintf(b.kernel, sizeof(b.kernel), "6.1.0-28-amd64");
	xsnprintf(a.kernel, sizeof(a.kernel), "6.12.9-amd64");
	xsnprintf(b.smt, sizeof(b.smt), "off");
	xsnprintf(a.smt, sizeof(a.smt), "on");
	is_int(host_facts_differ(&a, &b, &sb), 2, "SMT and host kernel");
	is_str(sb.buf, "SMT 'on' vs 'off', host kernel '6.12.9-amd64' vs "
	       "'6.1.0-28-amd64'", "named, in words");
	is_int(host_facts_from_json("[1]", &b), -1, "not an object");
	strbuf_release(&sb);
	return done_testing();
}
