/**
 * A profile name, as every surface takes it (HTTP, MCP, CLI, evals, the store):
 * letters, digits, `.`, `_` and `-`, up to 64 characters, starting with a
 * letter or digit, so it is safe in a URL path and a file name alike.
 */
export const profileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export const profileNameRule = 'up to 64 letters, digits, ".", "_" or "-", starting with a letter or digit'
