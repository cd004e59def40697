// SPDX-License-Identifier: GPL-2.0
/*
 * filter.js - the filters of the index: the rows of each table whose
 * rows carry a data-verdict (the series, daemon/render.c's
 * index_series()) are shown or hidden by their data-* attributes:
 * data-verdict, data-branch and data-author each by a <select> of the
 * values the rows have, data-subject and data-msgid by a search field
 * (a Message-ID may be pasted with its <> or as a lore link).
 *
 * Progressive enhancement: the page is a static file that lists every
 * row; this script only adds the form and hides rows, so without it (or
 * with scripts off) the whole list shows. The filters are kept in the
 * URL's fragment (#verdict=mixed&q=vmalloc), so a filtered view can be
 * bookmarked or sent; the page itself is never asked for again.
 *
 * Work: a few hundred rows at most (WEB_LIST_LIMIT per list), filtered
 * on each key stroke. No other file, no eval, no inline style: it runs
 * under the pages' Content-Security-Policy with script-src 'self'.
 */
(function () {
	'use strict';

	var FIELDS = [
		{ key: 'verdict', label: 'verdict', sort: false },
		{ key: 'branch', label: 'branch', sort: true },
		{ key: 'author', label: 'author', sort: true }
	];
	var NONE = '\u2014';	/* how an empty value is shown */

	function el(tag, attrs, text) {
		var e = document.createElement(tag), k;

		for (k in attrs)
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	/*
	 * A Message-ID as people paste it: "<id@host>", or a link to the
	 * archive, "https://lore.kernel.org/r/id@host" or ".../linux-mm/
	 * id@host/T/#u": the id itself, or "" when @q is none of them.
	 */
	function bare_msgid(q) {
		var parts, i, p;

		q = q.trim();
		if (/^<.*>$/.test(q))
			return q.slice(1, -1);
		if (!/^https?:\/\//.test(q))
			return '';
		parts = q.replace(/[?#].*$/, '').split('/').slice(3);
		for (i = 0; i < parts.length; i++) {
			try {
				p = decodeURIComponent(parts[i]);
			} catch (e) {
				p = parts[i];
			}
			if (p.indexOf('@') > 0)
				return p;
		}
		return '';
	}

	function matches(row, state) {
		var i, f, q, id, text;

		for (i = 0; i < FIELDS.length; i++) {
			f = FIELDS[i];
			if (state[f.key] !== null &&
			    (row.getAttribute('data-' + f.key) || '') !==
			    state[f.key])
				return false;
		}
		q = state.q.trim().toLowerCase();
		if (!q)
			return true;
		id = bare_msgid(q);
		text = ((row.getAttribute('data-subject') || '') + '\n' +
			(row.getAttribute('data-msgid') || '')).toLowerCase();
		return text.indexOf(q) >= 0 || (id && text.indexOf(id) >= 0);
	}

	/* the fragment as filters: null is "any" */
	function read_hash() {
		var state = { q: '' }, params, i;

		params = new URLSearchParams(location.hash.replace(/^#/, ''));
		for (i = 0; i < FIELDS.length; i++)
			state[FIELDS[i].key] = params.has(FIELDS[i].key) ?
				params.get(FIELDS[i].key) : null;
		state.q = params.get('q') || '';
		return state;
	}

	function write_hash(state) {
		var params = new URLSearchParams(), i, s;

		for (i = 0; i < FIELDS.length; i++)
			if (state[FIELDS[i].key] !== null)
				params.set(FIELDS[i].key, state[FIELDS[i].key]);
		if (state.q)
			params.set('q', state.q);
		s = params.toString();
		history.replaceState(null, '', s ? '#' + s :
				     location.pathname + location.search);
	}

	function setup(table) {
		var rows = Array.prototype.slice.call(table.tBodies[0] ?
						      table.tBodies[0].rows : []);
		var form, count, search, selects = {}, id = table.id;
		var i, j, f, values, counts, sel, v, opt, label;

		if (!rows.length)
			return;
		form = el('form', { 'class': 'filters', role: 'search',
				    'aria-label': 'filter the ' + id,
				    id: id + '-filters' });
		label = el('label', {}, 'search ');
		search = el('input', { type: 'search', id: id + '-q',
				       placeholder: 'subject or message-id',
				       autocomplete: 'off' });
		label.appendChild(search);
		form.appendChild(label);
		for (i = 0; i < FIELDS.length; i++) {
			f = FIELDS[i];
			values = [];
			counts = {};
			for (j = 0; j < rows.length; j++) {
				v = rows[j].getAttribute('data-' + f.key) || '';
				if (!(v in counts)) {
					counts[v] = 0;
					values.push(v);
				}
				counts[v]++;
			}
			/* verdicts in the page's order: the worst first */
			if (f.sort)
				values.sort();
			label = el('label', {}, f.label + ' ');
			sel = el('select', { id: id + '-' + f.key });
			sel.appendChild(el('option', { value: '' },
					   'any (' + rows.length + ')'));
			for (j = 0; j < values.length; j++) {
				/* "=" + value: "" is "any", "=" an empty one */
				opt = el('option', { value: '=' + values[j] },
					 (values[j] || NONE) + ' (' +
					 counts[values[j]] + ')');
				sel.appendChild(opt);
			}
			label.appendChild(sel);
			form.appendChild(label);
			selects[f.key] = sel;
		}
		count = el('output', { id: id + '-count',
				       'aria-live': 'polite' });
		form.appendChild(count);
		form.appendChild(el('button', { type: 'reset' }, 'clear'));

		function state_of_form() {
			var state = { q: search.value }, k;

			for (k in selects)
				state[k] = selects[k].value ?
					selects[k].value.slice(1) : null;
			return state;
		}

		function apply(state) {
			var shown = 0, r;

			for (r = 0; r < rows.length; r++) {
				rows[r].hidden = !matches(rows[r], state);
				shown += !rows[r].hidden;
			}
			count.textContent = shown === rows.length ?
				'all ' + rows.length + ' shown' :
				shown + ' of ' + rows.length + ' shown';
		}

		function load_hash() {
			var state = read_hash(), k, o, found;

			search.value = state.q;
			for (k in selects) {
				selects[k].value = '';
				if (state[k] === null)
					continue;
				found = false;
				for (o = 0; o < selects[k].options.length; o++)
					if (selects[k].options[o].value ===
					    '=' + state[k])
						found = true;
				/* a value no row has: an option that shows none */
				if (!found)
					selects[k].appendChild(el('option',
						{ value: '=' + state[k] },
						(state[k] || NONE) + ' (0)'));
				selects[k].value = '=' + state[k];
			}
			apply(state);
		}

		function changed() {
			var state = state_of_form();

			apply(state);
			write_hash(state);
		}

		form.addEventListener('input', changed);
		form.addEventListener('change', changed);
		form.addEventListener('submit', function (e) {
			e.preventDefault();
		});
		form.addEventListener('reset', function () {
			/* the form's values are reset after this event */
			setTimeout(changed, 0);
		});
		window.addEventListener('hashchange', load_hash);
		table.parentNode.insertBefore(form, table);
		load_hash();
	}

	function start() {
		var tables = document.querySelectorAll('table'), i;

		for (i = 0; i < tables.length; i++)
			if (tables[i].querySelector('tbody > tr[data-verdict]'))
				setup(tables[i]);
	}

	if (document.readyState === 'loading')
		document.addEventListener('DOMContentLoaded', start);
	else
		start();
}());
