// The side and bottom panels: bridge, kingdoms, the live feed, agents and turns, messages.
import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import { Chart, formatNumber } from './chart.js';
import { kingdomColor } from './colors.js';

export function BridgePanel({ bridge, history }) {
  const b = bridge;
  const stat = (label, value, hint) =>
    html`<div class="stat" title=${hint ?? ''}>
      <dt>${label}</dt>
      <dd>${value ?? '—'}</dd>
    </div>`;
  return html`<section class="panel bridge-panel" aria-labelledby="bridge-title">
    <header class="panel-head">
      <h2 id="bridge-title">Bridge</h2>
      <span class=${`pill ${b.enabled === false ? 'off' : 'on'}`}>${b.enabled === false ? 'disabled (kill switch)' : 'enabled'}</span>
    </header>
    <dl class="stats">
      ${stat('tick', b.tick?.toLocaleString('en'))} ${stat('fps', b.fps === undefined ? undefined : formatNumber(b.fps), 'frames a second of the game thread')}
      ${stat('slots', b.slotsMax === undefined ? undefined : `${b.slotsInUse} / ${b.slotsMax}`, 'admission slots in use')}
      ${stat('queue', b.queueDepth, 'entries waiting for the game thread')} ${stat('BUSY', b.busy, '503 BUSY answers since start')}
      ${stat('timeouts', b.timeouts, '504 MAIN_THREAD_TIMEOUT answers since start')}
    </dl>
    ${
      b.metricsNote
        ? html`<p class="muted small">${b.metricsNote}</p>`
        : html`<div class="charts">
            <${Chart} label="requests/s" unit="/s" points=${history.rps} colour="#4cc9f0" />
            <${Chart} label="queue wait" unit="ms" points=${history.queueWait} colour="#ffd166" />
          </div>`
    }
  </section>`;
}

export function KingdomsPanel({ kingdoms, claimed }) {
  return html`<section class="panel kingdoms-panel" aria-labelledby="kingdoms-title">
    <header class="panel-head">
      <h2 id="kingdoms-title">Kingdoms <span class="muted">${kingdoms ? kingdoms.length : ''}</span></h2>
    </header>
    ${
      kingdoms === null
        ? html`<p class="muted small">Loading…</p>`
        : kingdoms.error
          ? html`<p class="muted small">${kingdoms.error}</p>`
          : html`<table class="kingdoms">
              <thead>
                <tr>
                  <th scope="col">Kingdom</th>
                  <th scope="col" class="num">Units</th>
                  <th scope="col" class="num">Cities</th>
                </tr>
              </thead>
              <tbody>
                ${kingdoms.map(
                  (k) =>
                    html`<tr key=${k.id} class=${k.id === claimed ? 'mine' : ''}>
                      <td>
                        <span class="swatch" style=${{ background: kingdomColor(k.wild ? null : k.id) }}></span>${k.name}
                        <span class="muted small race">${k.race}${k.id === claimed ? ' · yours' : ''}</span>
                      </td>
                      <td class="num">${k.units_count.toLocaleString('en')}</td>
                      <td class="num">${k.cities_count}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
  </section>`;
}

const READ_CATEGORIES = new Set(['meta', 'read', 'discovery', 'bus']);

function kingdomTags(ids, kingdoms) {
  if (!ids || ids.length === 0) return null;
  return ids.slice(0, 3).map((id) => {
    // Animals belong to wild kingdoms, which list_kingdoms leaves out: grey, named "wild".
    const k = kingdoms.get(id);
    return html`<span class="tag"><span class="swatch" style=${{ background: kingdomColor(k ? id : null) }}></span>${k ? k.name : 'wild'}</span>`;
  });
}

function describe(event) {
  const d = event.data;
  switch (event.kind) {
    case 'command':
      return html`<span class="agent">${d.agent}</span> ran <code>${d.name ?? '(unknown)'}</code>
        <span class=${d.ok ? 'ok' : 'bad'}>${d.ok ? 'OK' : d.code}</span> <span class="muted">${formatNumber(d.ms)} ms</span>`;
    case 'spawned':
      return html`${d.spawned ?? d.count ?? ''} × <code>${d.entity_id ?? d.asset_id ?? ''}</code> at ${d.x}, ${d.y}`;
    case 'actor_born':
    case 'actor_died':
      return html`${d.name ?? d.asset_id ?? 'an actor'}${d.cause ? html` <span class="muted">(${d.cause})</span>` : null}`;
    case 'message':
      return html`<span class="agent">${d.from}</span> → ${Array.isArray(d.to) ? d.to.join(', ') : d.to}`;
    default: {
      const shown = Object.entries(d)
        .filter(([k]) => !['seq', 'kind', 'tick', 'at_utc', 'kingdom_ids'].includes(k))
        .slice(0, 4)
        .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`)
        .join(', ');
      return html`<span class="muted">${shown}</span>`;
    }
  }
}

export function FeedPanel({ events, state, commandCategories, kingdoms }) {
  const byId = useMemo(() => new Map(kingdoms.map((k) => [k.id, k])), [kingdoms]);
  const [agent, setAgent] = useState('');
  const [kind, setKind] = useState('');
  const [reads, setReads] = useState(false);
  const agents = useMemo(() => [...new Set(events.map((e) => e.data.agent ?? e.data.from).filter(Boolean))].sort(), [events]);
  const kinds = useMemo(() => [...new Set(events.map((e) => e.kind))].sort(), [events]);
  const shown = events.filter((e) => {
    if (kind && e.kind !== kind) return false;
    if (agent && (e.data.agent ?? e.data.from) !== agent) return false;
    // Reads (the viewer's own polling among them) are hidden unless asked for.
    if (!reads && e.kind === 'command' && READ_CATEGORIES.has(commandCategories[e.data.name])) return false;
    return true;
  });
  return html`<section class="panel feed-panel" aria-labelledby="feed-title">
    <header class="panel-head">
      <h2 id="feed-title">Live feed <span class=${`pill ${state === 'live' ? 'on' : 'off'}`}>${state}</span></h2>
      <div class="filters">
        <label
          >Agent
          <select value=${agent} onChange=${(e) => setAgent(e.currentTarget.value)}>
            <option value="">all</option>
            ${agents.map((a) => html`<option value=${a}>${a}</option>`)}
          </select></label
        >
        <label
          >Kind
          <select value=${kind} onChange=${(e) => setKind(e.currentTarget.value)}>
            <option value="">all</option>
            ${kinds.map((k) => html`<option value=${k}>${k}</option>`)}
          </select></label
        >
        <label class="check"><input type="checkbox" checked=${reads} onChange=${(e) => setReads(e.currentTarget.checked)} /> reads</label>
      </div>
    </header>
    <ol class="feed" id="feed" aria-live="polite" aria-relevant="additions">
      ${shown.length === 0 ? html`<li class="muted empty">No events yet.</li>` : null}
      ${shown.slice(0, 200).map(
        (e) =>
          html`<li key=${e.seq} data-kind=${e.kind} data-kingdoms=${(e.data.kingdom_ids ?? []).join(',')}>
            <span class="seq muted">#${e.seq}</span>
            <span class="tick muted">t${e.data.tick}</span>
            <span class=${`kind kind-${e.kind}`}>${e.kind}</span>
            <span class="what">${describe(e)} ${kingdomTags(e.data.kingdom_ids, byId)}</span>
          </li>`,
      )}
    </ol>
  </section>`;
}

export function AgentsPanel({ session, messages, whoami }) {
  return html`<section class="panel agents-panel" aria-labelledby="agents-title">
    <header class="panel-head">
      <h2 id="agents-title">Agents and turns</h2>
      ${session ? html`<span class="muted small">${session.scenario}${session.turn_based ? ` · turn: ${session.current_turn ?? '—'}` : ''}</span>` : null}
    </header>
    ${session?.error ? html`<p class="muted small">${session.error}</p>` : null}
    ${
      session?.agents
        ? html`<ul class="agents">
            ${session.agents.map(
              (a) =>
                html`<li key=${a.id} class=${a.id === whoami?.agent_id ? 'me' : ''}>
                  <strong>${a.id}</strong>
                  <span class="muted">${a.role}${a.claimed_kingdom_id ? ` · kingdom ${a.claimed_kingdom_id}` : ''}</span>
                  ${session.current_turn === a.id ? html`<span class="pill on">turn</span>` : null}
                  <span class="muted small last-seen">${a.last_seen_utc ? new Date(a.last_seen_utc).toLocaleTimeString('en-GB') : 'never'}</span>
                </li>`,
            )}
          </ul>`
        : null
    }
    <h3>Messages <span class="muted small">for ${whoami?.agent_id ?? 'this token'}</span></h3>
    ${
      messages.error
        ? html`<p class="muted small">${messages.error}</p>`
        : messages.items.length === 0
          ? html`<p class="muted small">No messages.</p>`
          : html`<ol class="messages">
              ${messages.items
                .slice(-30)
                .reverse()
                .map(
                  (m) =>
                    html`<li key=${m.seq}>
                      <span class="agent">${m.from}</span> → ${m.to}: ${m.content}
                      <span class="muted small">${m.kind ?? ''}</span>
                    </li>`,
                )}
            </ol>`
    }
  </section>`;
}
