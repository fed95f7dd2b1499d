// The API a `tool_search_code` snippet sees: the body of an async function,
// run in a sandbox with no fs, network, timers, imports or subprocess. Only
// `openclaw.tools.*` and `console` cross back to the host, where every call is
// checked against the policy and dispatched.

/** Error codes carried by every rejection from `openclaw.tools.*` (`err.code`). */
type ToolErrorCode =
  | "UNKNOWN_TOOL" // no such id, or hidden by the policy (the two look the same)
  | "INVALID_ARGS" // arguments do not match the schema; nothing was called
  | "LIMIT" // a budget (result size, calls, ...) was reached
  | "TIMEOUT" // the tool did not answer in time
  | "TOOL_ERROR" // the tool ran and reported an error (MCP `isError`)
  | "APPROVAL_DENIED" // a policy hook, approver or the destructive gate refused
  | "UNAVAILABLE" // the tool's server is down (the message names it)
  | "STALE"; // the catalog changed since this id was found: search again

/** What `openclaw.tools.*` rejects with. */
interface ToolError extends Error {
  readonly code: ToolErrorCode;
  /** TOOL_ERROR from an MCP tool: the result's `content` (text, images, resources). */
  readonly content?: unknown[];
  /** TOOL_ERROR from an MCP tool: the result's `structuredContent`, when it had one. */
  readonly structuredContent?: unknown;
}

/** One search hit. */
interface ToolHit {
  /** Stable id: `source:server:name`, e.g. `mcp:github:create_issue`. */
  id: string;
  name: string;
  server?: string;
  description: string;
  /** Present and false while the tool's server is down (calls fail with UNAVAILABLE). */
  available?: false;
}

/** The full record of one tool. */
interface ToolDescription {
  id: string;
  name: string;
  server?: string;
  description: string;
  input_schema: object;
  output_schema?: object;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  /** `declare function name(args: {...}): Promise<...>;` */
  typescript: string;
  available?: false;
}

declare const openclaw: {
  readonly tools: {
    /**
     * Finds tools. `query` is words (`+word` requires one), `select:a,b` (exact
     * names or ids), or `server:NAME`. `limit` defaults to 8, at most 20 (the
     * gateway's `search_default_limit` / `max_search_limit`). The array also
     * carries what the search said besides its hits: `hint` (a typo corrected,
     * the search adjusted), `limit_note` (the limit was lowered), `not_found`
     * (`select:` names with no tool), `listing` (nothing matched), `unavailable`
     * (servers down now, and why). `server:NAME page:N` gives one page of that
     * server's tools as hits (`limit` per page; `hint` names the next page). When it says
     * any of these, or nothing matched, returning or logging the array shows the
     * whole answer `{hits, hint, limit_note, not_found, listing}`; the tool's
     * answer also lists them under `search_notes`, whatever the snippet kept.
     */
    search(query: string, options?: { limit?: number }): Promise<ToolHit[]>;
    /** The full schema and a TypeScript declaration of one tool. */
    describe(id: string): Promise<ToolDescription>;
    /**
     * Calls a tool. For an MCP tool it resolves to, in order of preference:
     * the result's `structuredContent` when present; else the text of a single
     * text item, parsed as JSON when it is JSON; else the `content` array
     * (images, audio, resources, several items). A result with `isError`
     * rejects with a `ToolError` of code TOOL_ERROR carrying `content` and
     * `structuredContent`. Other tools resolve to what their dispatcher returned.
     * Lazy: the call starts when awaited (or `then` is called), so a call nobody
     * awaits never runs, and the snippet then fails with kind `not_awaited`
     * naming it; `Promise.all` of calls runs them concurrently. Images, audio and
     * resources in the value are the tool's own: returned, they reach the model
     * as content of their kind (a copy or a look-alike stays JSON).
     */
    call(id: string, args: Record<string, unknown>): Promise<unknown>;
  };
};

/**
 * What the model receives (MCP content): on success the JSON of the returned
 * value alone, then the tool images/audio/resources it holds (stand-ins
 * `{type, attached: n}` in the value), then `{logs, search_notes, hint,
 * unfinished}` when there is any; on failure (`isError`)
 * `{error: {kind, message, line?, column?, source?, hint?}, calls?: [{id,
 * status, code?, result?}], logs?, search_notes?}`. Tool results the snippet does
 * not return are not sent.
 */
type Answer = unknown;

/** Captured into the answer's `logs` (never printed by the host). */
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  trace(...args: unknown[]): void;
};
