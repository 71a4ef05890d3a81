// Prompts (decisions §14), listed per credential: each is offered only to a credential that may
// call the tools it needs, and its text names only tools that credential may call.
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';

/** The commands a session's credential may call, and how their tools are named. */
export interface ToolNames {
  has(command: string): boolean;
  prefix: string;
}

interface PromptDef {
  prompt: Prompt;
  /** Every one of these, or the prompt is not offered. */
  needs: readonly string[];
  text(tools: ToolNames, args: Record<string, string>): string;
}

/** `tool` as a model calls it, or undefined when the credential may not call it. */
const named = (tools: ToolNames, command: string) => (tools.has(command) ? `${tools.prefix}${command}` : undefined);

/** The lines whose tools are all callable, numbered. */
function steps(tools: ToolNames, lines: ReadonlyArray<readonly [readonly string[], (...names: string[]) => string]>): string {
  const kept: string[] = [];
  for (const [commands, line] of lines) {
    const names = commands.map((command) => named(tools, command));
    if (names.every((name): name is string => name !== undefined)) kept.push(`${kept.length + 1}. ${line(...names)}`);
  }
  return kept.join('\n');
}

const DEFS: readonly PromptDef[] = [
  {
    prompt: {
      name: 'play_kingdom',
      title: 'Play a kingdom',
      description: "A faction player's loop for one kingdom: observe it, act, follow the events, mind the turn.",
      arguments: [{ name: 'kingdom', description: 'the id of the kingdom you play (world://kingdoms lists them)', required: true }],
    },
    needs: ['observe', 'spawn'],
    text: (tools, { kingdom = '?' }) =>
      `You play kingdom ${kingdom} in a simulation game through the Game Control Bridge. Repeat:\n` +
      steps(tools, [
        [['observe'], (observe) => `Observe: ${observe} {"kingdom_id": ${kingdom}} gives your land, actors, counts and cities as small grids.`],
        [['list_cities'], (cities) => `Look closer when you need to: ${cities} {"kingdom_id": ${kingdom}}.`],
        [['query_actors'], (actors) => `Find your people with ${actors}.`],
        [
          ['spawn', 'list_actors'],
          (spawn, actors) => `Act: ${spawn} grows your kingdom where it stands (actor ids come from ${actors}); only act on your own land.`,
        ],
        [
          ['recv_events'],
          (events) =>
            `Follow what happens with ${events}: pass since_seq = its last next_cursor and wait_ms (up to 25000) to wait for news; a gap means: observe again.`,
        ],
        [
          ['session_info', 'turn_advance'],
          (info, advance) =>
            `Mind the turn: ${info} says whether the session is turn-based and whose turn it is; TURN_NOT_YOURS means wait. End your turn with ${advance}.`,
        ],
        [['step'], (step) => `When the world is paused or moves only when told (lockstep), ${step} {"ticks": N} moves it on.`],
      ]) +
      '\nKeep each turn short: observe, decide, act, then read the events your actions caused.',
  },
  {
    prompt: {
      name: 'observe_world',
      title: 'Report on the world',
      description: "An observer's report: the state of the world, its kingdoms and what happened lately.",
      arguments: [{ name: 'kingdom', description: 'a kingdom to report on in detail (its id); all of them when left out', required: false }],
    },
    needs: ['get_world_state', 'list_kingdoms'],
    text: (tools, { kingdom }) =>
      `Write a short report on the simulated world${kingdom === undefined ? '' : `, in detail on kingdom ${kingdom}`}:\n` +
      steps(tools, [
        [['get_world_state'], (state) => `Read the world's size, tick and population with ${state}.`],
        [['list_kingdoms'], (kingdoms) => `List the kingdoms with ${kingdoms} and compare their cities and units.`],
        [['list_cities'], (cities) => `Read their cities with ${cities}${kingdom === undefined ? '' : ` {"kingdom_id": ${kingdom}}`}.`],
        [['recv_events'], (events) => `Read what happened lately with ${events} (since_seq 0, then next_cursor).`],
        [['screenshot'], (shot) => `Look at the map with ${shot} {"max_dimension": 512}.`],
      ]) +
      '\nSay what changed, who grows and who declines, and what is likely to happen next. Change nothing.',
  },
  {
    prompt: {
      name: 'run_scenario',
      title: 'Set up a match',
      description: "A god's set-up of a match: a fresh world, its first peoples, the clock, then hand it to the players.",
      arguments: [
        { name: 'race', description: 'the actor id of the first settlers to place (list_actors)', required: false },
        { name: 'seed', description: 'the world seed (an integer) for a world that can be made again', required: false },
      ],
    },
    needs: ['generate_world', 'spawn'],
    text: (tools, { race = 'human', seed }) =>
      'Set up a match in the simulation:\n' +
      steps(tools, [
        [
          ['generate_world'],
          (generate) => `Make a fresh world with ${generate} {"zone_x": 4, "zone_y": 4${seed === undefined ? '' : `, "seed": ${seed}`}} (zones of 64 tiles).`,
        ],
        [['pause'], (pause) => `Pause it with ${pause} while you prepare.`],
        [['list_actors'], (actors) => `Check the actor ids with ${actors}.`],
        [['spawn'], (spawn) => `Place the first settlers with ${spawn} {"entity_id": "${race}", ...} on land, a group per player.`],
        [['list_kingdoms'], (kingdoms) => `Check with ${kingdoms} that each player's kingdom exists, and tell the players their ids.`],
        [['savepoint'], (savepoint) => `Keep the start with ${savepoint}, so the match can be run again from it.`],
        [['record_start'], (record) => `Record the match with ${record}.`],
        [['resume'], (resume) => `Start the clock with ${resume} (or let the players step it under lockstep).`],
      ]),
  },
];

export function promptsFor(tools: ToolNames): Prompt[] {
  return DEFS.filter((def) => def.needs.every((command) => tools.has(command))).map((def) => def.prompt);
}

/** What each argument may hold: the text goes into JSON the model will send. */
const ARGUMENT_FORMS: Record<string, { pattern: RegExp; what: string }> = {
  kingdom: { pattern: /^\d{1,9}$/, what: 'a kingdom id (an integer; world://kingdoms lists them)' },
  seed: { pattern: /^\d{1,15}$/, what: 'a seed (a non-negative integer)' },
  race: { pattern: /^[A-Za-z0-9_.-]{1,64}$/, what: 'an actor id (list_actors)' },
};

/**
 * A prompt's messages; undefined for no such prompt (for this credential); a string saying what is
 * wrong with the arguments.
 */
export function getPrompt(name: string, args: Record<string, string>, tools: ToolNames): GetPromptResult | string | undefined {
  const def = DEFS.find((d) => d.prompt.name === name && d.needs.every((command) => tools.has(command)));
  if (def === undefined) return undefined;
  for (const argument of def.prompt.arguments ?? []) {
    const value = args[argument.name];
    if (value === undefined) {
      if (argument.required === true) return `prompt '${name}' needs the argument '${argument.name}': ${argument.description}`;
      continue;
    }
    const form = ARGUMENT_FORMS[argument.name];
    if (form !== undefined && !form.pattern.test(value)) return `prompt '${name}': '${argument.name}' must be ${form.what}`;
  }
  return { description: def.prompt.description, messages: [{ role: 'user', content: { type: 'text', text: def.text(tools, args) } }] };
}
