// SPDX-License-Identifier: GPL-2.0
/*
 * test-result.c - the host never trusts the guest's JSON lines blindly.
 */
#include "result.h"
#include "tap.h"
#include "util.h"

static int parses(const char *line, struct result_record *rec, char *why)
{
	void *json;
	int r = result_parse_line(line, &json, rec, why, 160);

	result_free_json(json);
	return r;
}

static void rejected(const char *line, const char *want_why)
{
	struct result_record rec;
	char why[160] = "", name[256];

	xsnprintf(name, sizeof(name), "rejected: %.200s", line);
	ok(parses(line, &rec, why) < 0 && strstr(why, want_why), name);
	if (!strstr(why, want_why))
		printf("#   why: '%s', want '%s'\n", why, want_why);
}

int main(void)
{
	struct result_record rec;
	char why[160], *big;
	void *json;

	ok(!result_parse_line("{\"v\":1,\"type\":\"sample\",\"workload\":"
			      "\"fsdax\",\"metric\":\"rebind_memmap\",\"unit\":"
			      "\"ms\",\"iter\":3,\"value\":183}",
			      &json, &rec, why, sizeof(why)),
	   "a valid sample parses");
	is_str(rec.metric, "rebind_memmap", "metric");
	is_int(rec.iter, 3, "iteration");
	is_double(rec.value, 183, 0, "value");
	result_free_json(json);

	ok(!result_parse_line("{\"v\":1,\"type\":\"info\",\"workload\":"
			      "\"fsdax\",\"key\":\"pages\",\"value\":"
			      "\"25804288\"}", &json, &rec, why, sizeof(why)),
	   "an info record parses");
	is_str(rec.text_value, "25804288", "info value");
	result_free_json(json);
	ok(!parses("{\"v\":1,\"type\":\"done\",\"status\":\"ok\"}", &rec, why),
	   "done parses");
	ok(!parses("{\"v\":1,\"type\":\"error\",\"workload\":\"devdax\","
		   "\"msg\":\"no such device\"}", &rec, why), "error parses");

	ok(!result_parse_line("{\"v\":1,\"type\":\"sample\",\"workload\":"
			      "\"devdax\",\"variant\":\"align=2M,map=dev\","
			      "\"metric\":\"rebind_wall\",\"unit\":\"ms\","
			      "\"iter\":1,\"value\":12.5}", &json, &rec, why,
			      sizeof(why)), "a sample with a variant parses");
	is_str(rec.variant, "align=2M,map=dev", "variant");
	result_free_json(json);
	ok(!parses("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		   "\"metric\":\"m\",\"unit\":\"ms\",\"iter\":1,\"value\":1}",
		   &rec, why) && !rec.variant, "no variant is NULL");
	ok(!result_parse_line("{\"v\":1,\"type\":\"request\",\"workload\":"
			      "\"virtio-mem\",\"action\":\"virtio-mem-resize\","
			      "\"requested_mib\":8192,\"seq\":1}", &json, &rec,
			      why, sizeof(why)), "a request parses");
	is_str(rec.key, "virtio-mem-resize", "request action");
	result_free_json(json);
	ok(!parses("{\"v\":1,\"type\":\"sample\",\"workload\":\"vmap\","
		   "\"metric\":\"vmap_100m_order8_pmds\",\"unit\":\"entries\","
		   "\"iter\":1,\"value\":0}", &rec, why),
	   "a mapping count: unit entries, value 0");
	rejected("{\"v\":1,\"type\":\"request\",\"workload\":\"kmem\"}",
		 "request without");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"variant\":\"a b\",\"metric\":\"m\",\"unit\":\"ms\","
		 "\"iter\":1,\"value\":1}", "bad variant");
	rejected("{\"v\":1,\"type\":\"info\",\"workload\":\"fsdax\","
		 "\"variant\":7,\"key\":\"k\",\"value\":\"v\"}",
		 "bad variant");
	rejected("not json at all", "not JSON");
	rejected("[1,2,3]", "not a JSON object");
	rejected("{\"v\":2,\"type\":\"done\"}", "schema version");
	rejected("{\"type\":\"done\"}", "schema version");
	rejected("{\"v\":1}", "no type");
	rejected("{\"v\":1,\"type\":\"boom\"}", "unknown record type");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"metric\":\"m\",\"unit\":\"parsecs\",\"iter\":1,\"value\":1}",
		 "unknown unit");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"metric\":\"m\",\"unit\":\"ms\",\"iter\":1,\"value\":-5}",
		 "finite number");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"metric\":\"m\",\"unit\":\"ms\",\"iter\":1,\"value\":1e300}",
		 "finite number");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"metric\":\"m\",\"unit\":\"ms\",\"iter\":1,\"value\":\"7\"}",
		 "finite number");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"metric\":\"m\",\"unit\":\"ms\",\"value\":7}",
		 "iteration out of range");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"FS DAX;\","
		 "\"metric\":\"m\",\"unit\":\"ms\",\"iter\":1,\"value\":7}",
		 "bad workload name");
	rejected("{\"v\":1,\"type\":\"sample\",\"workload\":\"fsdax\","
		 "\"metric\":\"m'); DROP TABLE samples;--\",\"unit\":\"ms\","
		 "\"iter\":1,\"value\":7}", "valid workload and metric");
	rejected("{\"v\":1,\"v\":1,\"type\":\"done\"}", "not JSON");
	rejected("{\"v\":1,\"type\":\"info\",\"key\":\"k\",\"value\":3}",
		 "info without key and value");

	big = xmalloc(RESULT_MAX_LINE + 100);
	memset(big, ' ', RESULT_MAX_LINE + 99);
	big[0] = '{';
	big[RESULT_MAX_LINE + 98] = '}';
	big[RESULT_MAX_LINE + 99] = '\0';
	rejected(big, "longer than");
	free(big);
	return done_testing();
}
