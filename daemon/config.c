// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - paths from the environment with the embedded defaults.
 */
#include <libgen.h>
#include <limits.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"

/*
 * Paths are made absolute once, here: they end up in the database, in
 * libvirt domain XML, in CCACHE_BASEDIR and in the cwd of children.
 */
static char *absolute(const char *path)
{
	char *cwd, *abs, *out, *seg, *save = NULL;
	size_t len = 0;

	if (path[0] == '/') {
		abs = xstrdup(path);
	} else {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			die_errno("cannot get the current directory");
		abs = xstrfmt("%s/%s", cwd, path);
		free(cwd);
	}
	/*
	 * Lexically drop "." and "..": a path through a directory that is
	 * later removed (a test's scratch dir) must still name the target,
	 * and kbuild's M= mishandles "..".
	 */
	out = xmalloc(strlen(abs) + 2);
	out[0] = '\0';
	for (seg = strtok_r(abs, "/", &save); seg;
	     seg = strtok_r(NULL, "/", &save)) {
		if (!strcmp(seg, "."))
			continue;
		if (!strcmp(seg, "..")) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		len += xsnprintf(out + len, strlen(seg) + 2, "/%s", seg);
	}
	if (!len)
		xsnprintf(out, 2, "/");
	free(abs);
	return out;
}

static char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return absolute(v && *v ? v : def);
}

static char *binary_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	return xstrdup(dirname(buf));
}

void config_load(struct mmci_config *cfg)
{
	const char *proj = getenv("MMCI_PROJECT");
	const char *sandbox = getenv("MMCI_BUILD_SANDBOX");

	cfg->db_path = env_or("MMCI_DB", "mmci.db");
	cfg->data_dir = env_or("MMCI_DATA", "var");
	if (getenv("MMCI_TREE") && *getenv("MMCI_TREE"))
		cfg->tree_dir = absolute(getenv("MMCI_TREE"));
	else
		cfg->tree_dir = xstrfmt("%s/linux", cfg->data_dir);
	cfg->project_dir = proj && *proj ? absolute(proj) : binary_dir();
	if (sandbox_kind_parse(sandbox, &cfg->build_sandbox) < 0)
		die("MMCI_BUILD_SANDBOX must be 'bwrap' or 'none', not '%s'",
		    sandbox);
}

void config_release(struct mmci_config *cfg)
{
	free(cfg->db_path);
	free(cfg->data_dir);
	free(cfg->tree_dir);
	free(cfg->project_dir);
}

char *data_path(const struct mmci_config *cfg, const char *sub)
{
	char *p = xstrfmt("%s/%s", cfg->data_dir, sub);

	if (mkdir_p(p, 0755) < 0)
		die("cannot create the data directory '%s'", p);
	return p;
}

char *project_path(const struct mmci_config *cfg, const char *sub)
{
	return xstrfmt("%s/%s", cfg->project_dir, sub);
}

int config_read_env_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *next;
	int n = 0, lineno = 0, ret = -1;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		error_errno("cannot read the settings file '%s'", path);
		goto out;
	}
	for (line = sb.buf; line && *line; line = next) {
		char *eq, *val, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq || !starts_with(line, "MMCI_")) {
			error("%s:%d: not a MMCI_NAME=value line", path, lineno);
			goto out;
		}
		*eq = '\0';
		val = eq + 1;
		end = val + strlen(val);
		while (end > val && (end[-1] == ' ' || end[-1] == '\t' ||
				     end[-1] == '\r'))
			*--end = '\0';
		if (end - val >= 2 && *val == '"' && end[-1] == '"') {
			end[-1] = '\0';
			val++;
		}
		if (strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
		    strlen(line)) {
			error("%s:%d: bad name '%s'", path, lineno, line);
			goto out;
		}
		if (setenv(line, val, 1) < 0) {
			error_errno("%s:%d: cannot set %s", path, lineno, line);
			goto out;
		}
		n++;
	}
	ret = n;
out:
	strbuf_release(&sb);
	return ret;
}
