// SPDX-License-Identifier: GPL-2.0
/*
 * hostfacts.c - the host's facts a run records (hostfacts.h).
 */
#include <dirent.h>
#include <sys/utsname.h>

#include <jansson.h>

#include "hostfacts.h"
#include "strbuf.h"
#include "util.h"

/* the value of "KEY : value" at the start of a line of @text, or NULL */
static const char *cpuinfo_value(const char *text, const char *key,
				 size_t *len)
{
	const char *p = text;
	size_t n = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, n) && (p[n] == ' ' || p[n] == '\t' ||
					    p[n] == ':')) {
			const char *v = strchr(p, ':'), *eol;

			if (!v)
				return NULL;
			v++;
			while (*v == ' ' || *v == '\t')
				v++;
			eol = strchrnul(v, '\n');
			*len = eol - v;
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void copy_value(char *dst, size_t size, const char *v, size_t len)
{
	if (!v) {
		*dst = '\0';
		return;
	}
	while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

void host_facts_parse_cpuinfo(const char *text, struct host_facts *f)
{
	const char *v;
	size_t len = 0;

	v = cpuinfo_value(text, "model name", &len);
	if (!v) {
		/* arm64: "CPU implementer" and "CPU part" name the core */
		const char *impl, *part;
		size_t li = 0, lp = 0;

		impl = cpuinfo_value(text, "CPU implementer", &li);
		part = cpuinfo_value(text, "CPU part", &lp);
		if (impl && part) {
			char buf[64];

			xsnprintf(buf, sizeof(buf), "arm %.*s/%.*s", (int)li,
				  impl, (int)lp, part);
			copy_value(f->cpu, sizeof(f->cpu), buf, strlen(buf));
		} else {
			*f->cpu = '\0';
		}
	} else {
		copy_value(f->cpu, sizeof(f->cpu), v, len);
	}
	v = cpuinfo_value(text, "microcode", &len);
	copy_value(f->microcode, sizeof(f->microcode), v, len);
}

/* the first line of a small file, "" when there is none */
static void read_line(const char *path, char *dst, size_t size)
{
	struct strbuf sb = STRBUF_INIT;

	*dst = '\0';
	if (strbuf_read_file(&sb, path, 4096) < 0) {
		strbuf_release(&sb);
		return;
	}
	copy_value(dst, size, sb.buf, strchrnul(sb.buf, '\n') - sb.buf);
	strbuf_release(&sb);
}

int host_qemu_guests(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64], comm[64];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		xsnprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		read_line(path, comm, sizeof(comm));
		n += starts_with(comm, "qemu-system-");
	}
	closedir(d);
	return n;
}

void host_facts_read(struct host_facts *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct utsname u;
	char v[32];

	memset(f, 0, sizeof(*f));
	if (strbuf_read_file(&sb, "/proc/cpuinfo", 1 << 20) >= 0)
		host_facts_parse_cpuinfo(sb.buf, f);
	strbuf_release(&sb);
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		  f->governor, sizeof(f->governor));
	/* intel_pstate says no_turbo; acpi-cpufreq and amd say boost */
	read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v,
		  sizeof(v));
	if (*v)
		xsnprintf(f->turbo, sizeof(f->turbo), "%s",
			  !strcmp(v, "1") ? "off" : "on");
	else {
		read_line("/sys/devices/system/cpu/cpufreq/boost", v,
			  sizeof(v));
		if (*v)
			xsnprintf(f->turbo, sizeof(f->turbo), "%s",
				  !strcmp(v, "1") ? "on" : "off");
	}
	read_line("/sys/devices/system/cpu/smt/active", v, sizeof(v));
	if (*v)
		xsnprintf(f->smt, sizeof(f->smt), "%s",
			  !strcmp(v, "1") ? "on" : "off");
	if (!uname(&u))
		xsnprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	read_line("/proc/loadavg", v, sizeof(v));
	f->load1 = strtod(v, NULL);
	f->guests = host_qemu_guests();
}

char *host_facts_json(const struct host_facts *f)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:i}",
			      "cpu", f->cpu, "microcode", f->microcode,
			      "governor", f->governor, "turbo", f->turbo,
			      "smt", f->smt, "kernel", f->kernel,
			      "load1", f->load1, "guests", f->guests);
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

	json_decref(j);
	return s;
}

static void get_str(json_t *j, const char *key, char *dst, size_t size)
{
	const char *v = json_string_value(json_object_get(j, key));

	xsnprintf(dst, size, "%s", v ? v : "");
}

int host_facts_from_json(const char *json, struct host_facts *f)
{
	json_t *j = json ? json_loads(json, 0, NULL) : NULL;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(j)) {
		json_decref(j);
		return -1;
	}
	get_str(j, "cpu", f->cpu, sizeof(f->cpu));
	get_str(j, "microcode", f->microcode, sizeof(f->microcode));
	get_str(j, "governor", f->governor, sizeof(f->governor));
	get_str(j, "turbo", f->turbo, sizeof(f->turbo));
	get_str(j, "smt", f->smt, sizeof(f->smt));
	get_str(j, "kernel", f->kernel, sizeof(f->kernel));
	f->load1 = json_number_value(json_object_get(j, "load1"));
	f->guests = (int)json_integer_value(json_object_get(j, "guests"));
	json_decref(j);
	return 0;
}

int host_facts_differ(const struct host_facts *a, const struct host_facts *b,
		      struct strbuf *out)
{
	const struct {
		const char *what, *va, *vb;
	} f[] = {
		{ "CPU", a->cpu, b->cpu },
		{ "microcode", a->microcode, b->microcode },
		{ "SMT", a->smt, b->smt },
		{ "governor", a->governor, b->governor },
		{ "turbo", a->turbo, b->turbo },
		{ "host kernel", a->kernel, b->kernel },
	};
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		if (!strcmp(f[i].va, f[i].vb))
			continue;
		strbuf_addf(out, "%s%s '%s' vs '%s'", n++ ? ", " : "",
			    f[i].what, f[i].va, f[i].vb);
	}
	return n;
}
