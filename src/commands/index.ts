// The command catalogue (decisions §3), in catalogue order. Imported by every thread, so command
// modules stay free of side effects and load heavy libraries lazily inside their pool steps.
import type { CommandDef } from './define.ts';
import health from './meta/health.ts';
import whoami from './meta/whoami.ts';
import sessionInfo from './meta/session-info.ts';
import turnAdvance from './meta/turn-advance.ts';
import objectiveStatus from './meta/objective-status.ts';
import sendMessage from './bus/send-message.ts';
import recvMessages from './bus/recv-messages.ts';
import listTiles from './discovery/list-tiles.ts';
import listActors from './discovery/list-actors.ts';
import listPowers from './discovery/list-powers.ts';
import listSpeeds from './discovery/list-speeds.ts';
import invokePower from './action/invoke-power.ts';
import spawn from './action/spawn.ts';
import paintTile from './action/paint-tile.ts';
import getWorldState from './read/get-world-state.ts';
import getTile from './read/get-tile.ts';
import listKingdoms from './read/list-kingdoms.ts';
import listCities from './read/list-cities.ts';
import queryActors from './read/query-actors.ts';
import screenshot from './read/screenshot.ts';
import getUiState from './read/get-ui-state.ts';
import pause from './control/pause.ts';
import resume from './control/resume.ts';
import setSpeed from './control/set-speed.ts';
import dismissWindow from './control/dismiss-window.ts';
import generateWorld from './control/generate-world.ts';
import saveWorld from './control/save-world.ts';
import loadWorld from './control/load-world.ts';
import recvEvents from './read/recv-events.ts';
import batch from './action/batch.ts';
import step from './control/step.ts';
import worldHash from './read/world-hash.ts';
import savepoint from './control/savepoint.ts';
import rewind from './control/rewind.ts';
import savepointDrop from './control/savepoint-drop.ts';
import observe from './read/observe.ts';
import recordStart from './control/record-start.ts';
import recordStop from './control/record-stop.ts';

export const COMMANDS: readonly CommandDef[] = [
  health, // 1
  whoami, // 2
  sessionInfo, // 3
  turnAdvance, // 4
  objectiveStatus, // 5
  sendMessage, // 6
  recvMessages, // 7
  listTiles, // 8
  listActors, // 9
  listPowers, // 10
  listSpeeds, // 11
  invokePower, // 12
  spawn, // 13
  paintTile, // 14
  getWorldState, // 15
  getTile, // 16
  listKingdoms, // 17
  listCities, // 18
  queryActors, // 19
  screenshot, // 20
  getUiState, // 21
  pause, // 22
  resume, // 23
  setSpeed, // 24
  dismissWindow, // 25
  generateWorld, // 26
  saveWorld, // 27
  loadWorld, // 28
  recvEvents, // 29 (decisions §7)
  batch, // 30 (decisions §8)
  step, // 31 (decisions §12)
  worldHash, // 32
  savepoint, // 33
  rewind, // 34
  savepointDrop, // 35
  observe, // 36 (the fixed-size view for learning agents)
  recordStart, // 37 (decisions §12: episodes)
  recordStop, // 38
] as unknown as readonly CommandDef[];
