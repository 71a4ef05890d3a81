// gcb's help texts: one per subcommand, and the exit-code table.
import { exitCodeTable } from './exit-codes.ts';

const FINDING = `finding the bridge:
  --config-dir DIR   read the port and token from DIR/bridge.toml (default ./.bridge)
  --url URL          the bridge's URL; the token then comes from GCB_TOKEN
  GCB_TOKEN          the token to send (an agent's token in multi-agent mode); wins over bridge.toml's`;

const OUTPUT = `output: readable on a terminal, JSON when stdout is a pipe; --json forces JSON.`;

export const HELP: Record<string, string> = {
  main: `gcb: the Game Control Bridge command line

usage: gcb <command> [options]

commands:
  serve          start the bridge (what \`npm start\` runs)
  health         the health object (GET /health)
  capabilities   every enabled command with its args (GET /capabilities)
  call NAME      run a command: gcb call spawn entity_id=human x=10 y=20 count=3
  batch FILE     run up to 32 commands in one frame, from a JSON array (- reads stdin)
  step N         run N simulation ticks now (the lockstep clock, or a paused world)
  hash           the world's 64-bit digest and tick (world_hash)
  replay FILE    run a recorded episode again and check every hash (episodes/<name>.jsonl)
  events         follow what happens in the world, one line an event, until Ctrl-C (GET /events)
  token          print the token of a config dir, for pasting into a client config; --new: a fresh agent token
  mcp            an MCP server in front of the bridge (stdio, or --http on loopback)

${FINDING}

${OUTPUT}
Errors go to stderr as one readable line (with --json, the error envelope also goes to stdout).
BUSY is retried (Retry-After honoured, at most 4 retries); no other error is.

exit codes:
${exitCodeTable()}

Run \`gcb <command> --help\` for a command's options. Docs: docs/cli.md, docs/mcp.md.
`,

  serve: `usage: gcb serve [--config-dir DIR] [--port N] [--game MODULE] [--lockstep]

Starts the bridge on the built-in sandbox world (or the game module MODULE), exactly as \`npm start\`.
It prints one line with the URL, the config file and the version; logs go to stderr. On first launch
it writes DIR/bridge.toml (mode 0600) with a fresh token. SIGINT or SIGTERM stops it (exit 0).

  --config-dir DIR   the config dir: bridge.toml, agents.json, saves/ (default ./.bridge)
  --port N           overrides [Bridge] port (0: any free port)
  --game MODULE      path of a game module to load instead of the sandbox
  --lockstep         the lockstep clock (overrides [Game] clock): the world moves only through step

exit codes: 0 after a clean stop; 2 when it refuses to start (bad flag or config, port in use).
`,

  health: `usage: gcb health [--config-dir DIR | --url URL] [--json]

Prints the health object: versions, tick, the kill switch, the session mode.

${FINDING}

${OUTPUT}
`,

  capabilities: `usage: gcb capabilities [--config-dir DIR | --url URL] [--json]

Lists every enabled command with its category, description and args (GET /capabilities).
With --json (or in a pipe), the capabilities object with each command's JSON Schema.

${FINDING}

${OUTPUT}
`,

  call: `usage: gcb call NAME [key=value ...] [--json '{...}'] [--out FILE] [--config-dir DIR | --url URL]

Runs one command (POST /cmd). Args come as key=value pairs, typed by the command's schema
(x=10 is an integer, adult=true a boolean, entity_id=123 stays a string), or as one JSON object:

  gcb call get_world_state
  gcb call spawn entity_id=human x=10 y=20 count=3
  gcb call query_actors in_rect.x=0 in_rect.y=0 in_rect.w=32 in_rect.h=32 limit=10
  gcb call query_actors 'in_rect:={"x":0,"y":0,"w":32,"h":32}'
  gcb call spawn --json '{"entity_id":"human","x":10,"y":20}'
  gcb call screenshot format=png --out map.png

  key=value        a value typed by the schema; a.b=1 builds {"a":{"b":1}}
  key:=JSON        a raw JSON value
  --json '{...}'   the args as one JSON object (- reads it from stdin); key=value pairs win over it.
                   --json also forces JSON output, with or without an object after it.
  --out FILE       write the result to FILE: the decoded image for screenshot, else the result as JSON

Output: the result (readable), or with --json / in a pipe the success envelope {"ok":true,"result":...,"tick":N}.
An error prints its code, message and did_you_mean on stderr and exits with the code's exit code
(gcb --help has the table).

${FINDING}
`,

  batch: `usage: gcb batch FILE|- [--keep-going] [--json] [--config-dir DIR | --url URL]

Runs up to 32 commands as one batch (POST /cmd batch): in order, back to back in one game frame,
for one admission slot. FILE (or - for stdin) holds a JSON array of {"name": ..., "args": {...}}:

  echo '[{"name":"spawn","args":{"entity_id":"human","x":10,"y":20}},{"name":"get_tile","args":{"x":10,"y":20}}]' | gcb batch -

Items are reads, discovery, spawn, paint_tile, single-pulse invoke_power, pause, resume, set_speed
and dismiss_window. A bad item refuses the whole batch, naming it (commands[N]: ...).

  --keep-going     run the items after a failed one too (stop_on_error false)

Output: each item's result or error, then the counts; with --json / in a pipe the success envelope.
Exits 0 when every item ran, else with the exit code of the first failed item's error. Like every
action, it is sent with an Idempotency-Key and retried once with it if the connection drops.

${FINDING}
`,

  step: `usage: gcb step N [--json] [--config-dir DIR | --url URL]

Runs N simulation ticks (1 to 10,000) back to back and prints where the world got to (POST /cmd
step): the tick before and after, the ticks run and, for a credential with read_all, the world hash.
Under the lockstep clock (bridge.toml clock = "lockstep", or gcb serve --lockstep) this is the only
way the world moves; under realtime it runs only while the world is paused (gcb call pause). A step
runs at most 25 s: past it, it stops after the tick in progress and says so. Like every control
command it is sent with an Idempotency-Key, so a retried step never runs twice.

  gcb step 100
  gcb step 1000 --json | jq -r .result.hash

${FINDING}

${OUTPUT}
`,

  hash: `usage: gcb hash [--json] [--config-dir DIR | --url URL]

Prints the world's tick and its 64-bit digest, 16 hex (POST /cmd world_hash; needs read_all). Equal
worlds give equal hashes in any process on any machine: compare two runs, or a run with its replay.

${FINDING}

${OUTPUT}
`,

  replay: `usage: gcb replay FILE [--url URL] [--record NAME] [--max-ticks N]

Runs an episode record (record_start ... record_stop wrote it to episodes/<name>.jsonl) again and
checks every hash in it. Without --url it starts a lockstep bridge of its own in a temporary config
dir; with --url it uses that bridge (under the lockstep clock, a token holding control_world and
read_all: GCB_TOKEN). Either way it makes the recorded start world (generate_world with the
record's seed and size, then steps to its tick), runs each command at its tick and order, and
compares the world's hash at every hash line. A step that stops early (another agent's command
waits, or its 25 s) is stepped again for the rest.

It runs only what a record holds: spawn, paint_tile, invoke_power, batch (and reads inside it),
pause, resume, set_speed, step, savepoint, rewind, savepoint_drop. Any other command in the file
(save_world, load_world, generate_world, record_start, send_message, ...) refuses the whole file.

  --record NAME    record the replay too, as episodes/NAME.jsonl of the replaying bridge: its lines
                   are the record's own but for \`agent\` (and the savepoint ids of that bridge)
  --max-ticks N    the ticks it may step in all (default 10000000): a record whose start tick and
                   steps add up to more is refused; so is a header past tick 1000000

Exit 0 when everything matched. A record that is missing, cut short, of another format or
mod_version, not JSON, nested deeper than 32, holding a command no record holds, or past a bound
is refused in one line before anything runs (exit 5). The first difference (a hash, or an
answer's code) is printed with its tick and both sides (exit 6). Ctrl-C (SIGINT) or SIGTERM stops
it: its own bridge closes and its temporary dir is removed (exit 130, 143).
`,

  events: `usage: gcb events [--kinds KIND,KIND] [--since SEQ] [--config-dir DIR | --url URL] [--json]

Follows the bridge's events (GET /events) and prints one line an event until Ctrl-C (exit 0):

  gcb events
  gcb events --kinds war_declared,kingdom_fell,city_conquered
  gcb events --since 0 | jq -c 'select(.kind == "actor_died")'

  --kinds K,K    only these kinds (gcb capabilities --json lists event_kinds; an unknown one exits 10)
  --since SEQ    start with the kept events after SEQ (0: every event kept), then go live;
                 without it, live events only

Output: a readable line on a terminal (#seq time tick kind [kingdoms] field=value ...), one JSON
object a line in a pipe or with --json. A lost connection is resumed where it stopped (no event
twice, none lost while the bridge keeps them); notices about it go to stderr. Exit codes: 0 after
Ctrl-C, 2 for bad flags, 3 without a token, 4 when no bridge answers at start, 20 for a refused token.

${FINDING}
`,

  token: `usage: gcb token [--config-dir DIR] [--json]
       gcb token --new [--json]

Prints the legacy-mode token from DIR/bridge.toml (default ./.bridge), to paste into an MCP client
config or to export as GCB_TOKEN:

  export GCB_TOKEN=$(gcb token)

With --json: {"token": "...", "url": "http://127.0.0.1:PORT"}. The token is a credential with every
permission: keep it out of shared files. In multi-agent mode each agent's token is in agents.json instead.

With --new: a fresh strong token (48 characters from crypto) and its sha256, to paste into agents.json
as "token" or "token_sha256" (docs/multi-agent.md: rotate a token). With --json: {"token", "token_sha256"}.
`,

  mcp: `usage: gcb mcp [--config-dir DIR | --url URL] [--tool-prefix P] [--http [--port N]]

An MCP server in front of the bridge. At start it reads /capabilities and exposes one tool per
enabled command plus one for capabilities (36 with every command enabled), named P<command>
(default prefix worldbox_, so prompts written for the original WorldBox bridge work).

  (default)          stdio: one session, with the token of --config-dir or GCB_TOKEN
  --http             streamable HTTP on http://127.0.0.1:PORT/mcp instead. Each MCP session sends
                     its own bridge token (Authorization: Bearer) and every call it makes uses it,
                     so one server serves several agents. Only loopback Origin and Host headers are let in.
  --port N           the HTTP port (default 8724; 0: any free port)
  --tool-prefix P    the tool name prefix (letters, digits, _ and -; may be empty)

${FINDING}

See docs/mcp.md for Claude Code, Claude Desktop, Cursor and the MCP Inspector.
`,
};
