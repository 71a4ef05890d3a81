// Kingdom colours: the same golden-ratio hues the sandbox's screenshot tints territory with, so a
// dot and its kingdom's land match. Actors of no kingdom are a neutral grey.

export const WILD = '#b8bec8';

export function kingdomColor(id) {
  if (id === null || id === undefined || id === 0) return WILD;
  const h = (id * 0.618033988749895) % 1;
  const s = 0.75;
  const v = 0.95;
  const i = Math.floor(h * 6);
  const f = h * 6 - i;
  const p = v * (1 - s);
  const q = v * (1 - f * s);
  const t = v * (1 - (1 - f) * s);
  const [r, g, b] = [
    [v, t, p],
    [q, v, p],
    [p, v, t],
    [p, q, v],
    [t, p, v],
    [v, p, q],
  ][i % 6];
  const hex = (x) =>
    Math.round(x * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${hex(r)}${hex(g)}${hex(b)}`;
}
