// How tools are named, apart from the rest of the MCP server, so `gcb` checks --tool-prefix without
// loading it.

/** Prompts written for the original WorldBox bridge call its tools worldbox_<command>. */
export const DEFAULT_TOOL_PREFIX = 'worldbox_';
/** The tool for GET /capabilities: `<prefix>capabilities`. */
export const CAPABILITIES_TOOL = 'capabilities';

/** Keeps `<prefix><command>` inside the tool-name rules clients enforce ([A-Za-z0-9_-], at most 64). */
export const TOOL_PREFIX_PATTERN = /^[A-Za-z0-9_-]{0,32}$/;
