// The baseline most code-mode agents ship: one Node child per snippet, Node's
// permission model on (no fs writes, no child processes, no workers, no
// addons), the snippet in a `vm` context with code generation from strings and
// WebAssembly off, and the bridge as JSON lines over stdin/stdout.
//
// `toolsearch bench` runs it as
//   node --experimental-permission (or --permission) --allow-fs-read=<this file> <this file>
// and writes one line to stdin: {"code": "<body of an async function>"}.
// Requests go out as {"req": n, "op": "search"|"describe"|"call", ...}; answers
// come back as {"req": n, "ok": value} or {"req": n, "err": message}; the end is
// {"done": value} or {"error": message}.
'use strict';
const vm = require('node:vm');
const readline = require('node:readline');

const lines = readline.createInterface({ input: process.stdin, terminal: false });
const waiting = new Map();
let nextReq = 1;
let started = false;

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function ask(op, fields) {
  const req = nextReq++;
  return new Promise((resolve, reject) => {
    waiting.set(req, { resolve, reject });
    send({ req, op, ...fields });
  });
}

function run(code) {
  const tools = Object.freeze({
    // The host answers `{hits, hint, ...}`; the snippet sees the hits array with
    // the other fields on it, as in toolsearch's own prelude.
    search: async (query, options) => {
      const r = await ask('search', { query: String(query), limit: options && options.limit });
      return r && Array.isArray(r.hits) ? Object.assign(r.hits, { ...r, hits: undefined }) : r;
    },
    describe: (id) => ask('describe', { id: String(id) }),
    call: (id, args) => ask('call', { id: String(id), args: args === undefined ? {} : args }),
  });
  const context = vm.createContext(
    { openclaw: Object.freeze({ tools }) },
    { codeGeneration: { strings: false, wasm: false } },
  );
  const fn = vm.runInContext(`(async () => {\n${code}\n})`, context, { timeout: 5000 });
  Promise.resolve()
    .then(() => fn())
    .then(
      (value) => { send({ done: value === undefined ? null : value }); process.exit(0); },
      (e) => { send({ error: String(e && e.message || e) }); process.exit(0); },
    );
}

lines.on('line', (line) => {
  const msg = JSON.parse(line);
  if (!started) {
    started = true;
    run(msg.code);
    return;
  }
  const w = waiting.get(msg.req);
  if (!w) return;
  waiting.delete(msg.req);
  if ('err' in msg) w.reject(new Error(msg.err));
  else w.resolve(msg.ok);
});
