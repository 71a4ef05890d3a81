// The map panel: the world on a canvas at device pixels, terrain from the screenshot command (when
// the token may take one), actors as dots in their kingdom's colour, pan (drag, arrows), zoom
// (wheel, + and -), and a click on a tile asks get_tile for its card.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { cmd } from './api.js';
import { kingdomColor } from './colors.js';

const MIN_SCALE = 0.5;
const MAX_SCALE = 64;

export function MapPanel({ secret, world, actors, terrain, terrainNote, known }) {
  const canvasRef = useRef(null);
  const view = useRef({ scale: 0, ox: 0, oy: 0, fitted: '' });
  const drag = useRef(null);
  const [card, setCard] = useState(null);
  const [, setZoom] = useState(0);

  // Drawing reads the latest data through a ref, so pan and zoom redraw without a render.
  const data = useRef({ world, actors, terrain, known });
  data.current = { world, actors, terrain, known };

  const draw = () => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const height = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = '#0b0d11';
    ctx.fillRect(0, 0, width, height);
    const { world: w, actors: list, terrain: image, known: kingdomIds } = data.current;
    if (!w) return;
    const v = view.current;
    const key = `${w.width}x${w.height}:${width}x${height}`;
    if (v.scale === 0 || v.fitted !== key.split(':')[0]) fit(v, w, width, height);
    v.fitted = key.split(':')[0];
    const s = v.scale * dpr;
    ctx.save();
    ctx.translate(Math.round(v.ox * dpr), Math.round(v.oy * dpr));
    if (image) ctx.drawImage(image, 0, 0, w.width * s, w.height * s);
    else drawGrid(ctx, w, s);
    ctx.restore();
    ctx.strokeStyle = 'rgba(255,255,255,0.25)';
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.round(v.ox * dpr) + 0.5, Math.round(v.oy * dpr) + 0.5, Math.round(w.width * s) - 1, Math.round(w.height * s) - 1);
    const radius = Math.max(1.6 * dpr, Math.min(s * 0.42, 8 * dpr));
    const byColour = new Map();
    for (const a of list ?? []) {
      // Animals belong to wild kingdoms (not in list_kingdoms): grey, so the kingdoms' colours stand out.
      const colour = kingdomColor(kingdomIds && !kingdomIds.has(a.kingdom_id) ? null : a.kingdom_id);
      let group = byColour.get(colour);
      if (!group) byColour.set(colour, (group = []));
      group.push(a);
    }
    ctx.lineWidth = Math.max(1, dpr * 0.75);
    ctx.strokeStyle = 'rgba(0,0,0,0.55)';
    for (const [colour, group] of byColour) {
      ctx.fillStyle = colour;
      ctx.beginPath();
      for (const a of group) {
        const x = v.ox * dpr + (a.x + 0.5) * s;
        const y = v.oy * dpr + (a.y + 0.5) * s;
        if (x < -radius || y < -radius || x > width + radius || y > height + radius) continue;
        ctx.moveTo(x + radius, y);
        ctx.arc(x, y, radius, 0, Math.PI * 2);
      }
      ctx.fill();
      ctx.stroke();
    }
    if (card) {
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = 2 * dpr;
      ctx.strokeRect(v.ox * dpr + card.x * s, v.oy * dpr + card.y * s, Math.max(s, 3), Math.max(s, 3));
    }
  };

  // Redrawn on every data change (at least once a second: the actors poll), and on resize.
  useEffect(draw);
  useEffect(() => {
    const canvas = canvasRef.current;
    const observer = new ResizeObserver(() => draw());
    observer.observe(canvas);
    return () => observer.disconnect();
  }, []);

  const zoomAt = (factor, cx, cy) => {
    const v = view.current;
    const next = Math.min(MAX_SCALE, Math.max(MIN_SCALE, v.scale * factor));
    v.ox = cx - ((cx - v.ox) * next) / v.scale;
    v.oy = cy - ((cy - v.oy) * next) / v.scale;
    v.scale = next;
    setZoom(next);
    draw();
  };
  const pan = (dx, dy) => {
    view.current.ox += dx;
    view.current.oy += dy;
    draw();
  };

  const tileAt = (event) => {
    const rect = canvasRef.current.getBoundingClientRect();
    const v = view.current;
    return { x: Math.floor((event.clientX - rect.left - v.ox) / v.scale), y: Math.floor((event.clientY - rect.top - v.oy) / v.scale) };
  };

  const inspect = async (x, y) => {
    if (!world || x < 0 || y < 0 || x >= world.width || y >= world.height) return;
    setCard({ x, y, loading: true });
    try {
      setCard({ x, y, tile: await cmd(secret, 'get_tile', { x, y }) });
    } catch (error) {
      setCard({ x, y, error: `${error.code}: ${error.message}` });
    }
  };

  const onPointerDown = (event) => {
    drag.current = { x: event.clientX, y: event.clientY, moved: false };
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event) => {
    const d = drag.current;
    if (!d) return;
    const dx = event.clientX - d.x;
    const dy = event.clientY - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    d.moved = true;
    d.x = event.clientX;
    d.y = event.clientY;
    pan(dx, dy);
  };
  const onPointerUp = (event) => {
    const d = drag.current;
    drag.current = null;
    if (d && !d.moved) {
      const { x, y } = tileAt(event);
      void inspect(x, y);
    }
  };
  const onWheel = (event) => {
    event.preventDefault();
    const rect = canvasRef.current.getBoundingClientRect();
    zoomAt(event.deltaY < 0 ? 1.25 : 0.8, event.clientX - rect.left, event.clientY - rect.top);
  };
  const onKey = (event) => {
    const rect = canvasRef.current.getBoundingClientRect();
    const step = 40;
    const keys = {
      ArrowLeft: () => pan(step, 0),
      ArrowRight: () => pan(-step, 0),
      ArrowUp: () => pan(0, step),
      ArrowDown: () => pan(0, -step),
      '+': () => zoomAt(1.25, rect.width / 2, rect.height / 2),
      '=': () => zoomAt(1.25, rect.width / 2, rect.height / 2),
      '-': () => zoomAt(0.8, rect.width / 2, rect.height / 2),
      0: () => {
        view.current.scale = 0;
        draw();
      },
      Escape: () => setCard(null),
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };
  useEffect(() => {
    const canvas = canvasRef.current;
    canvas.addEventListener('wheel', onWheel, { passive: false });
    return () => canvas.removeEventListener('wheel', onWheel);
  });

  const size = world ? `${world.width}×${world.height}` : '…';
  return html`<section class="panel map-panel" aria-labelledby="map-title">
    <header class="panel-head">
      <h2 id="map-title">World map <span class="muted">${size}</span></h2>
      <div class="map-tools">
        ${terrainNote ? html`<span class="muted small">${terrainNote}</span>` : null}
        <button type="button" onClick=${() => zoomAt(1.25, canvasRef.current.clientWidth / 2, canvasRef.current.clientHeight / 2)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick=${() => zoomAt(0.8, canvasRef.current.clientWidth / 2, canvasRef.current.clientHeight / 2)} aria-label="Zoom out">
          −
        </button>
        <button
          type="button"
          onClick=${() => {
            view.current.scale = 0;
            draw();
          }}
        >
          Fit
        </button>
      </div>
    </header>
    <div class="map-wrap">
      <canvas
        ref=${canvasRef}
        id="map"
        tabindex="0"
        role="img"
        aria-label="World map: drag or use the arrow keys to pan, the wheel or + and - to zoom, click a tile for its details"
        onPointerDown=${onPointerDown}
        onPointerMove=${onPointerMove}
        onPointerUp=${onPointerUp}
        onKeyDown=${onKey}
      ></canvas>
      ${card ? html`<${TileCard} card=${card} onClose=${() => setCard(null)} />` : null}
    </div>
  </section>`;
}

function TileCard({ card, onClose }) {
  const { tile } = card;
  return html`<aside class="tile-card" aria-live="polite" aria-label=${`Tile ${card.x}, ${card.y}`}>
    <header>
      <strong>Tile ${card.x}, ${card.y}</strong>
      <button type="button" class="close" onClick=${onClose} aria-label="Close the tile card">×</button>
    </header>
    ${card.loading ? html`<p class="muted">Loading…</p>` : null} ${card.error ? html`<p class="error">${card.error}</p>` : null}
    ${
      tile
        ? html`<dl>
              <dt>Tile</dt>
              <dd>${tile.tile_id}</dd>
              <dt>Top</dt>
              <dd>${tile.top_id ?? '—'}</dd>
              <dt>Height</dt>
              <dd>${tile.height}</dd>
              <dt>Actors</dt>
              <dd>${tile.actor_count}</dd>
            </dl>
            ${
              tile.actors?.length
                ? html`<ul class="tile-actors">
                    ${tile.actors.slice(0, 8).map(
                      (a) =>
                        html`<li>
                          <span class="swatch" style=${{ background: kingdomColor(a.kingdom_id) }}></span>${a.name ?? a.asset_id}
                          <span class="muted">${a.asset_id}</span>
                        </li>`,
                    )}
                  </ul>`
                : null
            }`
        : null
    }
  </aside>`;
}

function fit(v, w, width, height) {
  const dpr = window.devicePixelRatio || 1;
  const cssW = width / dpr;
  const cssH = height / dpr;
  const scale = Math.max(MIN_SCALE, Math.min(cssW / w.width, cssH / w.height));
  v.scale = scale;
  v.ox = Math.round((cssW - w.width * scale) / 2);
  v.oy = Math.round((cssH - w.height * scale) / 2);
}

function drawGrid(ctx, w, s) {
  ctx.fillStyle = '#1a2029';
  ctx.fillRect(0, 0, w.width * s, w.height * s);
  ctx.strokeStyle = 'rgba(255,255,255,0.06)';
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let x = 0; x <= w.width; x += 16) {
    ctx.moveTo(Math.round(x * s) + 0.5, 0);
    ctx.lineTo(Math.round(x * s) + 0.5, w.height * s);
  }
  for (let y = 0; y <= w.height; y += 16) {
    ctx.moveTo(0, Math.round(y * s) + 0.5);
    ctx.lineTo(w.width * s, Math.round(y * s) + 0.5);
  }
  ctx.stroke();
}
