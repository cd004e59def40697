/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fetch.h - polite HTTP GET into the data directory's cache (libcurl).
 *
 * Every body fetched is kept under <data>/fetch/<sha1 of url> with its
 * validators (ETag, Last-Modified) in <...>.meta next to it, so a re-run
 * works from disk. The policy for a URL already fetched:
 *
 *  - by default the cached body is used and the network is not touched:
 *    ingest is meant to be reproducible (the same thread gives the same
 *    rows) and lore asks robots to fetch as little as they can;
 *  - with fo->refresh a conditional request (If-None-Match and
 *    If-Modified-Since) is made; 304 keeps the cached body, 200 replaces
 *    it (a thread grows when replies arrive).
 *
 * Network errors, 5xx and 429 are retried with exponential backoff
 * (Retry-After is honoured up to the longest backoff); another 4xx is an
 * error naming the URL and the status, and is not retried. Requests to one
 * host are spaced by fo->min_interval_ms, across processes (the time of the
 * last request is kept in <data>/fetch/hosts/<host>).
 */
#ifndef MMCI_FETCH_H
#define MMCI_FETCH_H

struct mmci_config;

struct fetch_opts {
	int max_attempts;	/* requests per fetch, >= 1 */
	long backoff_ms;	/* wait before the 2nd attempt; doubles */
	long max_backoff_ms;	/* cap of one wait, and of Retry-After */
	long min_interval_ms;	/* between two requests to one host */
	long timeout_s;		/* of one request, connect included */
	unsigned long long max_bytes;	/* of one body */
	int refresh;		/* revalidate a cached body (see above) */
};

/*
 * fetch_opts_init - the defaults (4 attempts, 1 s backoff up to 60 s, 1 s
 * between requests to a host, 120 s timeout, 256 MiB), then the
 * environment: MMCI_FETCH_ATTEMPTS, MMCI_FETCH_BACKOFF_MS,
 * MMCI_FETCH_MAX_BACKOFF_MS, MMCI_FETCH_INTERVAL_MS, MMCI_FETCH_TIMEOUT (s),
 * MMCI_FETCH_MAX_SIZE ("64M").
 */
void fetch_opts_init(struct fetch_opts *fo);

struct fetch_result {
	char *path;		/* the cached body; caller frees */
	long status;		/* HTTP status of the last request; 0 when
				 * the cache answered without a request */
	int requests;		/* requests made by this call */
	int from_cache;		/* the body was not transferred now */
	double fetched_at;	/* Unix time the body was last transferred */
};

/**
 * fetch_url() - GET @url into the cache
 * @cfg: for the data directory
 * @url: http:// or https://
 * @fo: the policy
 * @res: out; release with fetch_result_release(), also on failure
 *
 * Return: 0 with @res->path the body, or -1 after error() naming the URL
 * and what failed (the HTTP status, or libcurl's message).
 */
int fetch_url(const struct mmci_config *cfg, const char *url,
	      const struct fetch_opts *fo, struct fetch_result *res);

void fetch_result_release(struct fetch_result *res);

#endif
