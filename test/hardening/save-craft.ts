// Crafted save files, built in the test (never checked in as blobs): the save format's header and
// body (src/game/save-format.ts) around any metadata text and data section, and the body of a real
// save taken apart, so that tests and the load_world fuzz can change one thing and keep the rest.
import { crc32, gunzipSync, gzipSync } from 'node:zlib';

export interface Craft {
  /** The metadata JSON, as text (so it can be anything, nested 200,000 deep included). */
  json: string;
  /** The data section (the arrays' bytes), placed at the first 8-aligned byte after the JSON. */
  data?: Uint8Array;
  compress?: boolean;
  /** Header fields to lie in. */
  claimLength?: number;
  crc?: number;
}

const HEADER = 16;
const align8 = (n: number) => (n + 7) & ~7;

/** The body as the format lays it out: u32 JSON length, the JSON, padding, the data section. */
export function body(json: string, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  const text = Buffer.from(json, 'utf8');
  const dataStart = align8(4 + text.length);
  const out = new Uint8Array(dataStart + data.length);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 4);
  out.set(data, dataStart);
  return out;
}

/** A whole save file around `body`, with a correct checksum and length unless told otherwise. */
export function wrap(raw: Uint8Array, options: { compress?: boolean; claimLength?: number; crc?: number; payload?: Uint8Array } = {}): Uint8Array {
  const payload = options.payload ?? (options.compress ? gzipSync(raw) : raw);
  const out = new Uint8Array(HEADER + payload.length);
  out.set(Buffer.from('GCBW'), 0);
  const header = new DataView(out.buffer);
  header.setUint16(4, 1, true);
  header.setUint16(6, options.compress ? 1 : 0, true);
  header.setUint32(8, options.crc ?? crc32(raw), true);
  header.setUint32(12, options.claimLength ?? raw.length, true);
  out.set(payload, HEADER);
  return out;
}

export function craft(c: Craft): Uint8Array {
  return wrap(body(c.json, c.data), {
    ...(c.compress ? { compress: true } : {}),
    ...(c.claimLength === undefined ? {} : { claimLength: c.claimLength }),
    ...(c.crc === undefined ? {} : { crc: c.crc }),
  });
}

/** A real save taken apart: its metadata (parsed) and its data section. */
export function takeApart(save: Uint8Array): {
  meta: { snapshot: unknown; arrays: Array<{ type: string; offset: number; length: number }> };
  data: Uint8Array;
} {
  const compressed = (save[6]! & 1) === 1;
  const raw = compressed ? gunzipSync(save.subarray(HEADER)) : save.subarray(HEADER);
  const jsonLength = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getUint32(0, true);
  const meta = JSON.parse(Buffer.from(raw.subarray(4, 4 + jsonLength)).toString('utf8'));
  return { meta, data: raw.subarray(align8(4 + jsonLength)) };
}
