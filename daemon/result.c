// SPDX-License-Identifier: GPL-2.0
/*
 * result.c - validate and store the runner's JSON lines (jansson).
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>

#include "db.h"
#include "result.h"
#include "strbuf.h"
#include "util.h"

static const char *const units[] = { "ms", "us", "ns", "s", "MiB", "KiB",
				     "pages", "count", "cycles", "entries" };

static int valid_name(const char *s, size_t max)
{
	size_t n = 0;

	if (!s || !*s)
		return 0;
	for (; *s; s++, n++)
		if (n >= max || !(islower((unsigned char)*s) ||
				  isdigit((unsigned char)*s) || *s == '_' ||
				  *s == '-' || *s == '.'))
			return 0;
	return 1;
}

/* "align=2M,map=dev": names, '=' and ',' (upper case for size suffixes) */
static int valid_variant(const char *s)
{
	size_t n = 0;

	if (!s || !*s)
		return 0;
	for (; *s; s++, n++)
		if (n >= RESULT_MAX_VARIANT ||
		    !(isalnum((unsigned char)*s) || strchr("_-.=,", *s)))
			return 0;
	return 1;
}

static int valid_unit(const char *u)
{
	size_t i;

	for (i = 0; u && i < ARRAY_SIZE(units); i++)
		if (!strcmp(u, units[i]))
			return 1;
	return 0;
}

int result_names_ok(const char *workload, const char *variant,
		    const char *metric, const char *unit)
{
	return valid_name(workload, 32) && valid_name(metric, 64) &&
	       variant && (!*variant || valid_variant(variant)) &&
	       valid_unit(unit);
}

/* what makes a sample storable, wherever it comes from; 0 or -1 */
static int check_sample(const struct result_record *rec, char *why,
			size_t whylen)
{
	if (!valid_name(rec->workload, 32) || !valid_name(rec->metric, 64)) {
		snprintf(why, whylen, "sample without a valid workload and "
			 "metric");
		return -1;
	}
	if (rec->variant && *rec->variant && !valid_variant(rec->variant)) {
		snprintf(why, whylen, "bad variant");
		return -1;
	}
	if (!valid_unit(rec->unit)) {
		snprintf(why, whylen, "unknown unit");
		return -1;
	}
	if (!isfinite(rec->value) || rec->value < 0 ||
	    rec->value > RESULT_VALUE_MAX) {
		snprintf(why, whylen, "value is not a finite number in "
			 "[0, 1e12]");
		return -1;
	}
	if (rec->iter < 0 || rec->iter > 1000000) {
		snprintf(why, whylen, "iteration out of range");
		return -1;
	}
	return 0;
}

static const char *str_field(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

void result_free_json(void *json)
{
	json_decref(json);
}

int result_parse_line(const char *line, void **json_out,
		      struct result_record *rec, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *o, *v;

	memset(rec, 0, sizeof(*rec));
	*json_out = NULL;
	if (strlen(line) > RESULT_MAX_LINE) {
		snprintf(why, whylen, "line longer than %d bytes",
			 RESULT_MAX_LINE);
		return -1;
	}
	o = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		snprintf(why, whylen, "not JSON: %s", jerr.text);
		return -1;
	}
	*json_out = o;
	if (!json_is_object(o)) {
		snprintf(why, whylen, "not a JSON object");
		return -1;
	}
	v = json_object_get(o, "v");
	if (!json_is_integer(v) || json_integer_value(v) != RESULT_SCHEMA) {
		snprintf(why, whylen, "schema version is not %d", RESULT_SCHEMA);
		return -1;
	}
	rec->type = str_field(o, "type");
	rec->workload = str_field(o, "workload");
	if (!rec->type) {
		snprintf(why, whylen, "no type");
		return -1;
	}
	if (rec->workload && !valid_name(rec->workload, 32)) {
		snprintf(why, whylen, "bad workload name");
		return -1;
	}
	v = json_object_get(o, "iter");
	rec->iter = json_is_integer(v) ? json_integer_value(v) : -1;
	rec->variant = str_field(o, "variant");
	if (json_object_get(o, "variant") && !valid_variant(rec->variant)) {
		snprintf(why, whylen, "bad variant");
		return -1;
	}

	if (!strcmp(rec->type, "sample")) {
		rec->metric = str_field(o, "metric");
		rec->unit = str_field(o, "unit");
		v = json_object_get(o, "value");
		rec->value = json_is_number(v) ? json_number_value(v) : NAN;
		return check_sample(rec, why, whylen);
	}
	if (!strcmp(rec->type, "info")) {
		rec->key = str_field(o, "key");
		v = json_object_get(o, "value");
		rec->text_value = json_is_string(v) ? json_string_value(v) :
						      NULL;
		if (!valid_name(rec->key, 64) || !rec->text_value) {
			snprintf(why, whylen, "info without key and value");
			return -1;
		}
		return 0;
	}
	if (!strcmp(rec->type, "error")) {
		rec->msg = str_field(o, "msg");
		if (!rec->msg) {
			snprintf(why, whylen, "error without msg");
			return -1;
		}
		return 0;
	}
	if (!strcmp(rec->type, "hello")) {
		rec->text_value = str_field(o, "kernel");
		return 0;
	}
	if (!strcmp(rec->type, "request")) {
		/* acted on by the host during the boot (vm.c); kept as told */
		rec->key = str_field(o, "action");
		if (!rec->workload || !valid_name(rec->key, 64)) {
			snprintf(why, whylen, "request without workload and "
				 "action");
			return -1;
		}
		return 0;
	}
	if (!strcmp(rec->type, "done")) {
		rec->text_value = str_field(o, "status");
		return 0;
	}
	snprintf(why, whylen, "unknown record type");
	return -1;
}

static int add_event(struct db *db, long long run_id, long long boot_id,
		     const struct result_record *rec, const char *kind,
		     const char *key, const char *msg)
{
	return db_run(db, "INSERT INTO events (run_id, boot_id, workload, "
		      "variant, kind, iteration, key, message) VALUES "
		      "(?, ?, ?, ?, ?, ?, ?, ?)", "iitttitt", run_id, boot_id,
		      rec ? rec->workload : NULL, rec ? rec->variant : NULL,
		      kind, rec ? rec->iter : -1LL, key, msg);
}

static int add_sample(struct db *db, long long run_id, long long boot_id,
		      const struct result_record *rec)
{
	return db_run(db, "INSERT INTO samples (run_id, boot_id, workload, "
		      "variant, metric, unit, iteration, value) VALUES "
		      "(?, ?, ?, ?, ?, ?, ?, ?)", "iittttid", run_id, boot_id,
		      rec->workload, rec->variant ? rec->variant : "",
		      rec->metric, rec->unit, rec->iter, rec->value);
}

static const char *const event_kinds[] = { "info", "error", "rejected",
					   "request", "host" };

int result_store_sample(struct db *db, long long run_id, long long boot_id,
			const struct result_record *rec)
{
	char why[160];

	if (check_sample(rec, why, sizeof(why)) < 0)
		return error("run #%lld: sample %.32s %.64s iteration %lld "
			     "refused: %s", run_id,
			     rec->workload ? rec->workload : "(none)",
			     rec->metric ? rec->metric : "(none)", rec->iter,
			     why);
	return add_sample(db, run_id, boot_id, rec);
}

int result_store_event(struct db *db, long long run_id, long long boot_id,
		       const char *kind, const struct result_record *rec,
		       const char *key, const char *msg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_kinds); i++)
		if (kind && !strcmp(kind, event_kinds[i]))
			break;
	if (i == ARRAY_SIZE(event_kinds))
		return error("run #%lld: event kind '%.32s' refused: it is "
			     "none of info, error, rejected, request, host",
			     run_id, kind ? kind : "");
	if (!msg)
		return error("run #%lld: a '%s' event without a message "
			     "refused", run_id, kind);
	if (rec && rec->workload && !valid_name(rec->workload, 32))
		return error("run #%lld: a '%s' event of a bad workload name "
			     "refused", run_id, kind);
	if (rec && rec->variant && *rec->variant &&
	    !valid_variant(rec->variant))
		return error("run #%lld: a '%s' event of a bad variant "
			     "refused", run_id, kind);
	/* a 'rejected' event's key is the reason, in words */
	if ((!strcmp(kind, "info") || !strcmp(kind, "request")) &&
	    !valid_name(key, 64))
		return error("run #%lld: a '%s' event of a bad key refused",
			     run_id, kind);
	return add_event(db, run_id, boot_id, rec, kind, key, msg);
}

static int ingest_line(struct db *db, long long run_id, long long boot_id,
		       const char *line, struct result_counts *c)
{
	struct result_record rec;
	char why[160];
	void *json;
	int ret = 0;

	if (result_parse_line(line, &json, &rec, why, sizeof(why)) < 0) {
		char *shown = xstrndup(line, 200);

		c->rejected++;
		ret = add_event(db, run_id, boot_id, NULL, "rejected", why,
				shown);
		free(shown);
		result_free_json(json);
		return ret;
	}
	if (!strcmp(rec.type, "sample")) {
		c->samples++;
		ret = add_sample(db, run_id, boot_id, &rec);
	} else if (!strcmp(rec.type, "info")) {
		c->infos++;
		ret = add_event(db, run_id, boot_id, &rec, "info", rec.key,
				rec.text_value);
	} else if (!strcmp(rec.type, "error")) {
		c->errors++;
		ret = add_event(db, run_id, boot_id, &rec, "error", NULL,
				rec.msg);
	} else if (!strcmp(rec.type, "request")) {
		ret = add_event(db, run_id, boot_id, &rec, "request", rec.key,
				line);
	} else if (!strcmp(rec.type, "hello")) {
		free(c->kernel);
		c->kernel = xstrdup(rec.text_value ? rec.text_value : "");
	} else if (!strcmp(rec.type, "done")) {
		c->done = 1;
		c->done_ok = rec.text_value && !strcmp(rec.text_value, "ok");
	}
	result_free_json(json);
	return ret;
}

int result_ingest(struct db *db, long long run_id, long long boot_id,
		  const char *path, struct result_counts *c)
{
	FILE *fp = fopen(path, "r");
	struct strbuf line = STRBUF_INIT;
	int n = 0, ret = 0;

	memset(c, 0, sizeof(*c));
	if (!fp)
		return error_errno("cannot open results '%s'", path);
	if (db_begin(db) < 0) {
		fclose(fp);
		return -1;
	}
	while (strbuf_getline(&line, fp) != EOF && n++ < RESULT_MAX_LINES) {
		strbuf_trim(&line);
		/* a serial port can carry NULs and noise before the first line */
		if (!line.len || line.buf[0] != '{')
			continue;
		if (ingest_line(db, run_id, boot_id, line.buf, c) < 0) {
			ret = -1;
			break;
		}
	}
	fclose(fp);
	strbuf_release(&line);
	if (ret < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db);
}

int result_host_event(struct db *db, long long run_id, long long boot_id,
		      const char *msg)
{
	return add_event(db, run_id, boot_id, NULL, "host", NULL, msg);
}
