// The live viewer (decisions §9): a token form, then the panels, fed by polling the ordinary API
// and by GET /events. The token lives in sessionStorage and travels only in a header.
import { html, render } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, cmd, getJson, getText, parseMetrics, streamEvents, sumOf, token } from './api.js';
import { MapPanel } from './map.js';
import { AgentsPanel, BridgePanel, FeedPanel, KingdomsPanel } from './panels.js';

const HISTORY_POINTS = 120;
const FEED_SIZE = 500;
const TERRAIN_EVERY_MS = 5000;
const TERRAIN_EVENTS = new Set(['world_generated', 'world_loaded', 'tiles_painted', 'city_founded', 'city_destroyed', 'kingdom_fell', 'power_invoked']);

function App() {
  const [secret, setSecret] = useState(token.get());
  const [who, setWho] = useState(null);
  const [problem, setProblem] = useState(null);

  useEffect(() => {
    if (!secret) return;
    let cancelled = false;
    cmd(secret, 'whoami')
      .then((result) => !cancelled && setWho(result))
      .catch((error) => {
        if (cancelled) return;
        token.clear();
        setSecret(null);
        setProblem(explain(error));
      });
    return () => (cancelled = true);
  }, [secret]);

  const signOut = (message = null) => {
    token.clear();
    setWho(null);
    setSecret(null);
    setProblem(message);
  };

  if (!secret || !who)
    return html`<${TokenForm} problem=${problem} busy=${Boolean(secret)} onToken=${(value) => (token.set(value), setProblem(null), setSecret(value))} />`;
  return html`<${Dashboard} secret=${secret} who=${who} onSignOut=${signOut} />`;
}

function explain(error) {
  if (error instanceof ApiError && error.status === 401) {
    return 'The bridge refused this token (401 UNAUTHORIZED). Paste the token from bridge.toml, or an agent token from agents.json.';
  }
  if (error instanceof ApiError) return `The bridge answered ${error.status} ${error.code}: ${error.message}`;
  return `The bridge could not be reached: ${error.message}`;
}

function TokenForm({ problem, busy, onToken }) {
  const input = useRef(null);
  useEffect(() => input.current?.focus(), []);
  const submit = (event) => {
    event.preventDefault();
    const value = input.current.value.trim();
    if (value) onToken(value);
  };
  return html`<main class="login">
    <form class="panel login-form" onSubmit=${submit} aria-describedby="login-help">
      <h1>Game Control Bridge <span class="muted">viewer</span></h1>
      <p id="login-help" class="muted">
        Paste a token: the one in <code>bridge.toml</code>, or an agent's from <code>agents.json</code>. It stays in this tab (sessionStorage) and is sent only
        as a request header. The viewer shows what this token may see.
      </p>
      <label for="token">Token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" ref=${input} required />
      <button type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Connect'}</button>
      ${problem ? html`<p class="error" role="alert" id="login-error">${problem}</p>` : null}
    </form>
  </main>`;
}

/** Calls `task` every `ms` while mounted, never two at once. */
function usePoll(ms, task, deps) {
  useEffect(() => {
    let stopped = false;
    let running = false;
    const tick = async () => {
      if (running || stopped) return;
      running = true;
      try {
        await task(() => stopped);
      } finally {
        running = false;
      }
    };
    void tick();
    const timer = setInterval(tick, ms);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, deps);
}

function Dashboard({ secret, who, onSignOut }) {
  const readAll = who.permissions.includes('read_all');
  const [world, setWorld] = useState(null);
  const [actors, setActors] = useState([]);
  const [terrain, setTerrain] = useState(null);
  const [kingdoms, setKingdoms] = useState(null);
  const [session, setSession] = useState(null);
  const [messages, setMessages] = useState({ items: [], error: null });
  const [events, setEvents] = useState([]);
  const [feedState, setFeedState] = useState('connecting');
  const [bridge, setBridge] = useState({});
  const [history, setHistory] = useState({ rps: [], queueWait: [] });
  const [categories, setCategories] = useState({});
  const terrainDue = useRef(0);
  const previous = useRef(null);

  const guard = async (work) => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) onSignOut('The bridge no longer accepts this token (401). Paste a valid one.');
      throw error;
    }
  };

  useEffect(() => {
    getJson(secret, '/capabilities')
      .then((caps) => setCategories(Object.fromEntries(caps.commands.map((c) => [c.name, c.category]))))
      .catch(() => {});
  }, [secret]);

  // The world and its actors: once a second, so the map redraws at least that often.
  usePoll(
    1000,
    async (stopped) => {
      try {
        const [state, found] = await guard(() => Promise.all([cmd(secret, 'get_world_state'), cmd(secret, 'query_actors', { limit: 5000 })]));
        if (stopped()) return;
        setWorld(state);
        setActors(found.items);
        if (readAll && Date.now() >= terrainDue.current) {
          terrainDue.current = Date.now() + TERRAIN_EVERY_MS;
          const shot = await cmd(secret, 'screenshot', { format: 'png', max_dimension: Math.min(1280, Math.max(state.width, state.height)) });
          const bytes = Uint8Array.from(atob(shot.base64), (ch) => ch.charCodeAt(0));
          const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
          if (!stopped()) setTerrain(bitmap);
        }
      } catch {
        // the next poll tries again; the bridge panel shows the bridge's state
      }
    },
    [secret],
  );

  usePoll(
    2000,
    async (stopped) => {
      const [k, s] = await Promise.allSettled([guard(() => cmd(secret, 'list_kingdoms')), cmd(secret, 'session_info')]);
      if (stopped()) return;
      setKingdoms(k.status === 'fulfilled' ? k.value.items : { error: `${k.reason.code}: ${k.reason.message}` });
      setSession(s.status === 'fulfilled' ? s.value : { error: `${s.reason.code}: ${s.reason.message}` });
      try {
        const result = await cmd(secret, 'recv_messages', { since_seq: 0, max: 500 });
        if (!stopped()) setMessages({ items: result.items, error: null });
      } catch (error) {
        if (!stopped()) setMessages({ items: [], error: error.status === 403 ? 'This token may not read messages.' : `${error.code}: ${error.message}` });
      }
    },
    [secret],
  );

  // The bridge panel: /health for everyone, /metrics for read_all tokens.
  usePoll(
    1000,
    async (stopped) => {
      const now = Date.now() / 1000;
      const next = { t: now };
      try {
        const health = await getJson(secret, '/health');
        next.tick = health.tick;
        next.enabled = health.enabled;
      } catch {
        // BUSY while saturated: keep the last figures
      }
      if (readAll) {
        try {
          const series = parseMetrics(await getText(secret, '/metrics'));
          next.requests = sumOf(series, 'gcb_requests_total');
          next.busy = sumOf(series, 'gcb_requests_total', (l) => l.code === 'BUSY');
          next.timeouts = sumOf(series, 'gcb_requests_total', (l) => l.code === 'MAIN_THREAD_TIMEOUT');
          next.slotsInUse = sumOf(series, 'gcb_slots_in_use');
          next.slotsMax = sumOf(series, 'gcb_slots_max');
          next.queueDepth = sumOf(series, 'gcb_queue_depth');
          next.frames = sumOf(series, 'gcb_frame_duration_seconds_count');
          next.waitSum = sumOf(series, 'gcb_queue_wait_seconds_sum');
          next.waitCount = sumOf(series, 'gcb_queue_wait_seconds_count');
        } catch (error) {
          next.metricsNote = `/metrics: ${error.code ?? error.message}`;
        }
      } else {
        next.metricsNote = 'Charts need a token with read_all (/metrics).';
      }
      if (stopped()) return;
      const prev = previous.current;
      previous.current = next;
      if (prev) {
        const dt = Math.max(0.001, now - prev.t);
        next.fps = next.frames !== undefined && prev.frames !== undefined ? (next.frames - prev.frames) / dt : (next.tick - prev.tick) / dt;
        if (next.requests !== undefined && prev.requests !== undefined) {
          const rps = (next.requests - prev.requests) / dt;
          const waits = next.waitCount - prev.waitCount;
          const wait = waits > 0 ? ((next.waitSum - prev.waitSum) / waits) * 1000 : 0;
          setHistory((h) => ({ rps: [...h.rps, [now, rps]].slice(-HISTORY_POINTS), queueWait: [...h.queueWait, [now, wait]].slice(-HISTORY_POINTS) }));
        }
      }
      setBridge(next);
    },
    [secret],
  );

  // The feed: GET /events, streamed.
  useEffect(() => {
    setEvents([]);
    return streamEvents(secret, {
      onState: setFeedState,
      onEvent: (kind, data) => {
        if (TERRAIN_EVENTS.has(kind)) terrainDue.current = Math.min(terrainDue.current, Date.now() + 300);
        setEvents((list) => [{ seq: data.seq, kind, data }, ...list].slice(0, FEED_SIZE));
      },
    });
  }, [secret]);

  const claimed = who.claimed_kingdom_id ?? null;
  const terrainNote = readAll ? null : 'terrain needs read_all; your actors only';
  return html`<div class="layout">
    <header class="top">
      <h1>Game Control Bridge <span class="muted">viewer</span></h1>
      <div class="world-facts" aria-label="World">
        ${
          world
            ? html`<span>tick <strong id="tick">${world.tick.toLocaleString('en')}</strong></span>
                <span>population <strong>${world.population_alive.toLocaleString('en')}</strong></span>
                <span>kingdoms <strong>${world.kingdoms_alive}</strong></span>
                <span>cities <strong>${world.cities_alive}</strong></span>
                ${world.paused ? html`<span class="pill off">paused</span>` : null}`
            : html`<span class="muted">loading the world…</span>`
        }
      </div>
      <div class="who">
        <span><strong>${who.agent_id}</strong> <span class="muted">${who.role}${claimed ? ` · kingdom ${claimed}` : ''}</span></span>
        <button type="button" onClick=${() => onSignOut(null)}>Sign out</button>
      </div>
    </header>
    <${MapPanel}
      secret=${secret}
      world=${world}
      actors=${actors}
      terrain=${terrain}
      terrainNote=${terrainNote}
      known=${Array.isArray(kingdoms) ? new Set(kingdoms.map((k) => k.id)) : null}
    />
    <div class="side">
      <${BridgePanel} bridge=${bridge} history=${history} />
      <${KingdomsPanel} kingdoms=${kingdoms} claimed=${claimed} />
    </div>
    <${FeedPanel} events=${events} state=${feedState} commandCategories=${categories} kingdoms=${Array.isArray(kingdoms) ? kingdoms : []} />
    <${AgentsPanel} session=${session} messages=${messages} whoami=${who} />
  </div>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the boot line
render(html`<${App} />`, root);
