// Copyright 2018-2026 the Deno authors. MIT license.
export const value = "aliased";
export default { value };
