// The operator page of the toolsearch gateway.
//
// A static page (index.html) filled from the admin JSON API under /api/.
// Rules this file keeps:
// - Everything the server sends (names, descriptions, schemas, answers,
//   errors) is untrusted: it only ever reaches the DOM as `textContent` of
//   elements made with `document.createElement`. No HTML is parsed from data,
//   no URL is taken from data, no style attribute is written.
// - The admin token lives in sessionStorage under TOKEN_KEY and goes out as a
//   bearer header on each /api/ fetch; never a cookie. A 401 forgets it.
// - No list is rendered whole: the catalog is fetched a page at a time, other
//   lists are shown a page at a time and never more than MAX_ROWS rows.
'use strict';

const TOKEN_KEY = 'toolsearch-admin-token';
const TABS = ['servers', 'catalog', 'search', 'try', 'sessions', 'reload'];
const CATALOG_PAGE = 50;
const SESSIONS_PAGE = 50;
const MAX_ROWS = 200;
const SEARCH_LIMIT = 20;
// The body of an async function, as the model writes it for tool_search_code.
const TRY_DEFAULT = 'const hits = await openclaw.tools.search("weather forecast");\nreturn hits;';

/** The element with id `id`. */
const $ = (id) => document.getElementById(id);

/** Mutable page state, in one place. */
const state = {
  profilesReady: null, // promise: the profile selects are filled
  catalog: { offset: 0, total: 0, loaded: false, seq: 0 },
  sessions: { list: [], offset: 0 },
  tool: null, // {id, profile} of the tool shown in #tool-detail
  searchSeq: 0,
};

// ---- helpers

/**
 * A new element: `opts.cls` its class, `opts.text` its text (as text),
 * `opts.data` its data-* values; `children` nodes or strings (text) to append.
 */
function el(tag, opts = {}, children = []) {
  const node = document.createElement(tag);
  if (opts.cls) node.className = opts.cls;
  if (opts.text !== undefined && opts.text !== null) node.textContent = String(opts.text);
  if (opts.data) for (const [k, v] of Object.entries(opts.data)) node.dataset[k] = String(v);
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** A number as the page shows numbers; a dash when it is not one. */
function num(n, digits = 0) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A table cell with text; `cls` e.g. 'n' (numeric) or 'mono'. */
const td = (text, cls) => el('td', { cls, text });

/** Any JSON value as indented text. */
const pretty = (value) => JSON.stringify(value, null, 2) ?? '';

/** Any JSON value as one line of text. */
const compact = (value) => JSON.stringify(value) ?? '';

/** An <option> with `value` showing `text`. */
function option(value, text) {
  const node = el('option', { text });
  node.value = String(value);
  return node;
}

/** A table row saying the list is empty, spanning `columns`. */
function emptyRow(columns, text) {
  const cell = el('td', { cls: 'empty', text });
  cell.colSpan = columns;
  return el('tr', { cls: 'empty' }, [cell]);
}

// ---- errors

function showError(text) {
  $('error-text').textContent = text;
  $('error').hidden = false;
}

function clearError() {
  $('error').hidden = true;
  $('error-text').textContent = '';
}

// ---- the API

/**
 * The JSON answer to `path` (GET, or POST of `body` as JSON), or null when
 * it failed; the failure is already shown (banner, or the login form on 401).
 */
async function api(path, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) {
    showLogin('');
    return null;
  }
  const headers = { Authorization: 'Bearer ' + token };
  const init = { headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
    init.method = 'POST';
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    showError('request failed: ' + e.message);
    return null;
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  const said = data && typeof data.error === 'string' ? data.error : null;
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin(said || 'the token was refused (401)');
    return null;
  }
  if (!response.ok || data === null) {
    showError(said || `${path.split('?')[0]}: HTTP ${response.status}`);
    return null;
  }
  return data;
}

/** `path` with query parameters `params` (skipping empty values). */
function withQuery(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v !== null && v !== undefined) q.set(k, String(v));
  return path + '?' + q.toString();
}

// ---- login

/** Show the login form (with `message`) and forget everything shown. */
function showLogin(message) {
  wipe();
  $('app-view').hidden = true;
  $('tabs').hidden = true;
  $('logout').hidden = true;
  $('login-view').hidden = false;
  $('login-message').textContent = message;
  $('token').value = '';
  $('token').focus();
}

/** Empty every element that holds server data. */
function wipe() {
  for (const node of document.querySelectorAll('[data-clear]')) node.replaceChildren();
  $('tool-detail').hidden = true;
  $('fusion').hidden = true;
  $('try-result').hidden = true;
  state.catalog = { offset: 0, total: 0, loaded: false, seq: state.catalog.seq + 1 };
  state.sessions = { list: [], offset: 0 };
  state.tool = null;
  state.profilesReady = null;
  for (const select of document.querySelectorAll('.profile-select')) select.replaceChildren();
  fillServerSelect([]);
  $('catalog-status').textContent = '';
  $('servers-status').textContent = '';
  $('catalog-prev').disabled = true;
  $('catalog-next').disabled = true;
}

/** Show the views for a stored token and load what every view needs. */
function start() {
  $('login-view').hidden = true;
  $('app-view').hidden = false;
  $('tabs').hidden = false;
  $('logout').hidden = false;
  state.profilesReady = loadProfiles();
  route();
}

function onLogin(event) {
  event.preventDefault();
  const token = $('token').value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  $('token').value = '';
  clearError();
  start();
}

function onLogout() {
  sessionStorage.clear();
  clearError();
  showLogin('logged out');
}

// ---- routing

/** The tab the location hash names, `servers` by default. */
function currentTab() {
  const tab = location.hash.replace(/^#/, '');
  return TABS.includes(tab) ? tab : 'servers';
}

/** Go to `tab` (through the hash, so Back works). */
function go(tab) {
  if (currentTab() === tab && location.hash === '#' + tab) route();
  else location.hash = '#' + tab;
}

/** Show the tab the hash names and load its data. */
function route() {
  if (!sessionStorage.getItem(TOKEN_KEY)) {
    showLogin('');
    return;
  }
  clearError();
  const tab = currentTab();
  for (const view of document.querySelectorAll('[data-view]')) view.hidden = view.dataset.view !== tab;
  for (const button of document.querySelectorAll('[data-tab]')) {
    const on = button.dataset.tab === tab;
    button.classList.toggle('active', on);
    button.setAttribute('aria-current', on ? 'page' : 'false');
  }
  // The tool detail belongs to the views that open it.
  $('tool-detail').hidden = !(state.tool && (tab === 'catalog' || tab === 'search'));
  if (tab === 'servers') loadServers();
  else if (tab === 'catalog' && !state.catalog.loaded) loadCatalog();
  else if (tab === 'sessions') loadSessions();
  else if (tab === 'reload') loadReload();
}

// ---- profiles

/** Fill every profile select from /api/profiles (keeping a choice made). */
async function loadProfiles() {
  const data = await api('/api/profiles');
  if (!data) return false;
  const names = (data.profiles || []).map((p) => String(p.name));
  const fallback = names.includes('default') ? 'default' : names[0] || '';
  for (const select of document.querySelectorAll('.profile-select')) {
    const keep = select.value;
    select.replaceChildren(...(data.profiles || []).map((p) => option(p.name, `${p.name} (${num(p.tools)} tools)`)));
    select.value = names.includes(keep) ? keep : fallback;
  }
  return true;
}

// ---- servers

async function loadServers() {
  const data = await api('/api/servers');
  if (!data) return;
  const servers = data.servers || [];
  const rows = servers.slice(0, MAX_ROWS).map(serverRow);
  $('servers-table').tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(9, 'no servers')]));
  const up = servers.filter((s) => s.up).length;
  $('servers-status').textContent =
    `${num(up)} of ${num(servers.length)} up` + (servers.length > MAX_ROWS ? `, first ${MAX_ROWS} shown` : '');
  fillServerSelect(servers.map((s) => String(s.name)));
}

/** Seconds as a short age: "40 s ago", "12 min ago", "3 h ago". */
function ago(secs) {
  if (secs < 120) return `${num(secs)} s ago`;
  if (secs < 7200) return `${num(Math.round(secs / 60))} min ago`;
  return `${num(Math.round(secs / 3600))} h ago`;
}

/** One server's table row. */
function serverRow(s) {
  const down = s.state === 'down' || (s.up === false && s.state !== 'stopped' && s.state !== 'starting');
  const stateCell = el('td', { cls: down ? 'down' : '' }, [el('span', { cls: 'state', text: s.state })]);
  const notes = [];
  if (s.lazy) notes.push('lazy');
  if (s.needs_login) notes.push('needs login: ' + s.needs_login);
  if (s.manifest_age_s !== null && s.manifest_age_s !== undefined) notes.push(`manifest ${num(s.manifest_age_s)} s old`);
  if (s.manifest_note) notes.push(s.manifest_note);
  if (s.calls_in_flight) notes.push(`${num(s.calls_in_flight)} calls in flight`);
  if (s.error) stateCell.append(el('div', { cls: 'reason', text: s.error }));
  if (notes.length) stateCell.append(el('div', { cls: 'note', text: notes.join(' · ') }));
  const row = el('tr', {}, [
    td(s.name, 'mono'),
    stateCell,
    td(num(s.tools), 'n'),
    td(num(s.calls), 'n'),
    td(num(s.errors), 'n'),
    td(num(s.list_changes) + (s.list_changed_s != null ? ` (last ${ago(s.list_changed_s)})` : ''), 'n'),
    td(num(s.connections), 'n'),
    td(s.protocol || '—', 'mono'),
    td((s.problems || []).join('; '), 'problems'),
  ]);
  row.dataset.server = String(s.name);
  return row;
}

/** The catalog's server filter: "all servers" and each server's name. */
function fillServerSelect(names) {
  const select = $('catalog-server');
  const keep = select.value;
  select.replaceChildren(option('', 'all servers'), ...names.map((name) => option(name, name)));
  select.value = names.includes(keep) ? keep : '';
}

// ---- catalog

/** Fetch and show the catalog page at `state.catalog.offset`. */
async function loadCatalog() {
  await state.profilesReady;
  const profile = $('catalog-profile').value;
  if (!profile) {
    $('catalog-status').textContent = 'no profile';
    return;
  }
  const server = $('catalog-server').value;
  const seq = ++state.catalog.seq;
  $('catalog-prev').disabled = true;
  $('catalog-next').disabled = true;
  const data = await api(
    withQuery('/api/catalog', { profile, server, offset: state.catalog.offset, limit: CATALOG_PAGE }),
  );
  if (seq !== state.catalog.seq) return; // a newer page was asked for meanwhile
  if (!data) {
    updatePager();
    return;
  }
  const tools = (data.tools || []).slice(0, MAX_ROWS);
  state.catalog.loaded = true;
  state.catalog.offset = data.offset || 0;
  state.catalog.total = data.total || 0;
  state.catalog.shown = tools.length;
  const body = $('catalog-rows');
  body.replaceChildren(...(tools.length ? tools.map(catalogRow) : [emptyRow(4, 'no tools')]));
  body.dataset.server = server;
  body.dataset.offset = String(state.catalog.offset);
  updatePager();
}

/** Prev/Next enabled as the page allows; the "1–50 of N" line. */
function updatePager() {
  const { offset, total, shown = 0 } = state.catalog;
  $('catalog-prev').disabled = offset <= 0;
  $('catalog-next').disabled = offset + shown >= total;
  $('catalog-status').textContent =
    shown > 0 ? `${num(offset + 1)}–${num(offset + shown)} of ${num(total)}` : `0 of ${num(total)}`;
}

/** One tool's catalog row; clicking it opens the tool. */
function catalogRow(t) {
  const name = el('td', {}, [el('div', { text: t.name })]);
  if (t.title) name.append(el('div', { cls: 'note', text: t.title }));
  const description = el('td', { cls: 'desc' }, [
    el('div', { cls: 'clamp', text: (t.description || '') + (t.description_cut ? '…' : '') }),
  ]);
  const row = el('tr', {}, [td(t.id, 'mono'), td(t.server || '—', 'mono'), name, description]);
  row.dataset.id = String(t.id);
  row.tabIndex = 0;
  return row;
}

function onCatalogPage(step) {
  clearError();
  state.catalog.offset = Math.max(0, state.catalog.offset + step * CATALOG_PAGE);
  loadCatalog();
}

function onCatalogFilter() {
  clearError();
  state.catalog.offset = 0;
  loadCatalog();
}

/** A click or Enter on a catalog row opens that tool. */
function onCatalogRow(event) {
  if (event.type === 'keydown' && event.key !== 'Enter') return;
  const row = event.target.closest('tr[data-id]');
  if (row) openTool(row.dataset.id, $('catalog-profile').value);
}

// ---- search

async function onSearch(event) {
  event.preventDefault();
  clearError();
  await state.profilesReady;
  const profile = $('search-profile').value;
  const q = $('search-q').value.trim();
  if (!profile || !q) return;
  const seq = ++state.searchSeq;
  $('search-go').disabled = true;
  const data = await api(withQuery('/api/search', { profile, q, limit: SEARCH_LIMIT }));
  $('search-go').disabled = false;
  if (seq !== state.searchSeq || !data) return;
  renderSearch(data);
}

function renderSearch(data) {
  const result = data.result || {};
  const hits = (result.hits || []).slice(0, MAX_ROWS);
  const summary = $('search-summary');
  summary.replaceChildren(
    el('span', {
      text: `matched by ${result.matched_by ?? '—'} · ranker ${data.ranker ?? '—'} · ` +
        `${num(result.total)} total, ${num(hits.length)} shown`,
    }),
  );
  if (result.hint) summary.append(el('div', { cls: 'note', text: 'hint: ' + result.hint }));
  if (Array.isArray(result.not_found) && result.not_found.length) {
    summary.append(el('div', { cls: 'note', text: 'not found: ' + result.not_found.join(', ') }));
  }
  if (result.listing !== undefined && result.listing !== null) {
    summary.append(el('details', {}, [el('summary', { text: 'listing' }), el('pre', { cls: 'out', text: pretty(result.listing) })]));
  }
  renderFusion(result.fusion);
  $('search-hits').replaceChildren(...hits.map((hit) => hitItem(hit)));
}

/** The fusion facts when the hybrid ranker fused, hidden otherwise. */
function renderFusion(fusion) {
  const box = $('fusion');
  if (!fusion || typeof fusion !== 'object') {
    box.hidden = true;
    $('fusion-facts').replaceChildren();
    return;
  }
  const fact = (term, value, cls) => [el('dt', { text: term }), el('dd', { cls, text: value })];
  $('fusion-facts').replaceChildren(
    ...fact('lexical weight', num(fusion.lexical_weight, 3)),
    ...fact('value share', num(fusion.value_share, 3)),
    ...fact('embedded text', fusion.embedded ?? '—', 'mono pre'),
    ...fact('lexical top', fusion.lexical_top ?? '—', 'mono'),
    ...fact('lexical top lifted', fusion.lexical_top_lifted ? 'yes' : 'no'),
  );
  box.hidden = false;
}

/** A rule of an explanation is the embedding's share when it is "semantic…". */
const isSemantic = (rule) => typeof rule === 'string' && rule.startsWith('semantic');

/** One row of a hit's explanation. */
function explainRow(kind, part, cls) {
  const row = el('tr', { cls }, [
    td(kind),
    td(part.rule, 'mono'),
    td(part.term ?? '', 'mono'),
    td(num(part.score, 3), 'n'),
    td(part.similarity === undefined ? '' : num(part.similarity, 3), 'n'),
  ]);
  row.dataset.kind = kind;
  return row;
}

/** One search hit: id, score, description, the score's explanation. */
function hitItem(hit) {
  const explain = Array.isArray(hit.explain) ? hit.explain : [];
  let lexical = 0;
  let semantic = 0;
  const rows = explain.map((part) => {
    const kind = isSemantic(part.rule) ? 'embedding share' : 'lexical';
    if (typeof part.score === 'number') {
      if (kind === 'lexical') lexical += part.score;
      else semantic += part.score;
    }
    return explainRow(kind, part, kind === 'lexical' ? '' : 'semantic');
  });
  // A fused hit's lexical share is the keyword score, scaled: its own parts
  // (fields and terms matched, in the keyword ranker's points) follow it.
  const fields = Array.isArray(hit.lexical_rules) ? hit.lexical_rules : [];
  const at = rows.findIndex((row) => row.dataset.kind === 'lexical') + 1;
  rows.splice(at, 0, ...fields.map((part) => explainRow('· field matched', part, 'field')));
  const describe = el('button', { cls: 'describe', text: 'describe' });
  describe.type = 'button';
  const head = el('div', { cls: 'hit-head' }, [
    el('code', { cls: 'hit-id', text: hit.id }),
    el('span', { cls: 'score', text: 'score ' + num(hit.score, 3) }),
    el('span', { cls: 'note', text: [hit.server, hit.source].filter(Boolean).join(' · ') }),
    describe,
  ]);
  const item = el('li', { cls: 'hit' }, [head, el('p', { cls: 'prose', text: hit.description ?? '' })]);
  item.dataset.id = String(hit.id);
  if (rows.length) {
    item.append(
      el('p', {
        cls: 'shares',
        text: `lexical parts ${num(lexical, 3)} · embedding share ${num(semantic, 3)}`,
      }),
      el('table', { cls: 'explain' }, [
        el('thead', {}, [el('tr', {}, ['kind', 'rule', 'term', 'score', 'similarity'].map((h) => el('th', { text: h })))]),
        el('tbody', {}, rows),
      ]),
    );
  }
  return item;
}

/** A click on a hit (not inside its explanation) opens that tool. */
function onHitClick(event) {
  const item = event.target.closest('li.hit');
  if (!item) return;
  if (!event.target.closest('.describe') && event.target.closest('.explain, details')) return;
  openTool(item.dataset.id, $('search-profile').value);
}

// ---- tool detail

async function openTool(id, profile) {
  clearError();
  const data = await api(withQuery('/api/tool', { profile, id }));
  if (!data) return;
  state.tool = { id: String(data.id), profile };
  $('tool-id').textContent = data.id;
  const heading = [data.name, data.title, data.server ? 'server ' + data.server : null].filter(Boolean);
  $('tool-heading').textContent = heading.join(' · ');
  $('tool-description').textContent = data.description ?? '';
  $('tool-profiles').textContent = (data.profiles || []).join(', ');
  $('tool-typescript').textContent = data.typescript ?? '';
  $('tool-schema').textContent = pretty(data.input_schema);
  $('tool-extra').textContent =
    'output schema: ' + pretty(data.output_schema ?? null) + '\nannotations: ' + pretty(data.annotations ?? null);
  const detail = $('tool-detail');
  detail.hidden = false;
  detail.scrollIntoView({ block: 'start' });
}

/** "Try it": the Try tab with a snippet describing the tool shown. */
function onToolTry() {
  if (!state.tool) return;
  $('try-code').value = `return await openclaw.tools.describe(${JSON.stringify(state.tool.id)});`;
  const select = $('try-profile');
  if ([...select.options].some((o) => o.value === state.tool.profile)) select.value = state.tool.profile;
  go('try');
}

// ---- try

async function onTry() {
  clearError();
  await state.profilesReady;
  const profile = $('try-profile').value;
  if (!profile) return;
  const button = $('try-go');
  button.disabled = true;
  for (const id of ['try-status', 'try-bytes', 'try-answer', 'try-record']) $(id).textContent = '';
  $('try-calls').tBodies[0].replaceChildren();
  $('try-status').textContent = 'running…';
  $('try-result').hidden = false;
  try {
    const data = await api('/api/try', { profile, code: $('try-code').value, real_calls: $('try-real').checked });
    if (!data) {
      $('try-result').hidden = true;
      return;
    }
    renderTry(data);
  } finally {
    button.disabled = false;
  }
}

function renderTry(data) {
  $('try-status').textContent =
    `${data.dry_run ? 'dry run' : 'real calls'} · ${data.is_error ? 'is_error: true' : 'is_error: false'} · ${num(data.ms)} ms`;
  $('try-bytes').textContent = `${num(data.bytes)} bytes`;
  $('try-answer').textContent = data.answer ?? '';
  const calls = (data.calls || []).slice(0, MAX_ROWS);
  $('try-calls').tBodies[0].replaceChildren(
    ...(calls.length
      ? calls.map((c) =>
          el('tr', {}, [
            td(c.tool, 'mono'),
            el('td', {}, [el('pre', { cls: 'cell', text: pretty(c.arguments) })]),
            td(c.made ? 'made' : 'not made (dry run)'),
            el('td', {}, [el('pre', { cls: 'cell', text: pretty(c.result) })]),
          ]),
        )
      : [emptyRow(4, 'no tool calls')]),
  );
  $('try-record').textContent = pretty(data.record);
}

// ---- sessions

async function loadSessions() {
  const data = await api('/api/sessions');
  if (!data) return;
  const profiles = (data.profiles || []).slice(0, MAX_ROWS);
  $('sessions-profiles').tBodies[0].replaceChildren(
    ...(profiles.length ? profiles.map(profileSavingsRow) : [emptyRow(5, 'no profiles')]),
  );
  state.sessions.list = data.sessions || [];
  state.sessions.offset = Math.min(state.sessions.offset, Math.max(0, state.sessions.list.length - 1));
  state.sessions.offset -= state.sessions.offset % SESSIONS_PAGE;
  renderSessionsPage();
}

/** A profile's list bytes: served, what a plain aggregator would, saved. */
function profileSavingsRow(p) {
  const served = p.bytes_served;
  const plain = p.bytes_aggregator;
  let saved = '—';
  if (typeof served === 'number' && typeof plain === 'number' && plain > 0) {
    saved = `${num(plain - served)} (${num(((plain - served) / plain) * 100, 1)}%)`;
  }
  return el('tr', {}, [td(p.name, 'mono'), td(num(p.sessions), 'n'), td(num(served), 'n'), td(num(plain), 'n'), td(saved, 'n')]);
}

/** The numbers a session row shows, in column order. */
const SESSION_COUNTS = ['age_s', 'idle_s', 'turns', 'calls', 'searches', 'describes', 'errors'];

/** The current page of sessions, with its pager. */
function renderSessionsPage() {
  const { list, offset } = state.sessions;
  const page = list.slice(offset, offset + SESSIONS_PAGE);
  const rows = page.map((s) => {
    const last = el('td');
    if (s.last_turn !== null && s.last_turn !== undefined) {
      const t = s.last_turn;
      const said = `${t.tool ?? 'last turn'}${t.error ? ' (failed)' : ''}`;
      last.append(el('details', {}, [el('summary', { text: said }), el('pre', { cls: 'cell', text: compact(t) })]));
    } else {
      last.textContent = '—';
    }
    const row = el('tr', {}, [
      td(s.id, 'mono'),
      td(s.profile, 'mono'),
      td(s.principal),
      ...SESSION_COUNTS.map((key) => td(num(s[key]), 'n')),
      last,
    ]);
    row.dataset.session = String(s.id);
    return row;
  });
  $('sessions-table').tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(11, 'no open sessions')]));
  $('sessions-prev').disabled = offset <= 0;
  $('sessions-next').disabled = offset + page.length >= list.length;
  $('sessions-status').textContent = list.length
    ? `${num(offset + 1)}–${num(offset + page.length)} of ${num(list.length)} sessions`
    : '0 sessions';
}

function onSessionsPage(step) {
  const next = state.sessions.offset + step * SESSIONS_PAGE;
  if (next < 0 || next >= state.sessions.list.length) return;
  state.sessions.offset = next;
  renderSessionsPage();
}

// ---- reload

async function loadReload() {
  const data = await api('/api/reload');
  if (!data) return;
  $('reload-file').textContent = `${data.path ?? '(no file)'} · digest ${data.digest ?? '—'}`;
  const last = data.last;
  let lastText = 'no reload since the gateway started';
  if (last) {
    lastText = `at ${last.at}: ${last.ok ? 'applied' : 'refused'}`;
    if (last.error) lastText += ' — ' + last.error;
    if (last.summary !== null && last.summary !== undefined) lastText += ' — ' + compact(last.summary);
  }
  $('reload-last').textContent = lastText;
  const pending = data.pending;
  $('reload-pending').textContent =
    pending === null || pending === undefined
      ? 'the file on disk is the configuration in force'
      : typeof pending.error === 'string'
        ? 'cannot read the file on disk: ' + pending.error
        : pretty(pending);
  $('reload-in-force').textContent = pretty(data.in_force);
}

// ---- wiring

function init() {
  $('login-form').addEventListener('submit', onLogin);
  $('logout').addEventListener('click', onLogout);
  $('error-close').addEventListener('click', clearError);
  for (const button of document.querySelectorAll('[data-tab]')) {
    button.addEventListener('click', () => go(button.dataset.tab));
  }
  window.addEventListener('hashchange', route);

  $('servers-refresh').addEventListener('click', () => { clearError(); loadServers(); });
  $('catalog-profile').addEventListener('change', onCatalogFilter);
  $('catalog-server').addEventListener('change', onCatalogFilter);
  $('catalog-prev').addEventListener('click', () => onCatalogPage(-1));
  $('catalog-next').addEventListener('click', () => onCatalogPage(1));
  $('catalog-rows').addEventListener('click', onCatalogRow);
  $('catalog-rows').addEventListener('keydown', onCatalogRow);
  $('search-form').addEventListener('submit', onSearch);
  $('search-hits').addEventListener('click', onHitClick);
  $('tool-try').addEventListener('click', onToolTry);
  $('tool-close').addEventListener('click', () => {
    state.tool = null;
    $('tool-detail').hidden = true;
  });
  $('try-go').addEventListener('click', onTry);
  $('sessions-refresh').addEventListener('click', () => { clearError(); loadSessions(); });
  $('sessions-prev').addEventListener('click', () => onSessionsPage(-1));
  $('sessions-next').addEventListener('click', () => onSessionsPage(1));
  $('reload-refresh').addEventListener('click', () => { clearError(); loadReload(); });

  $('try-code').value = TRY_DEFAULT;
  if (sessionStorage.getItem(TOKEN_KEY)) start();
  else showLogin('');
}

init();
