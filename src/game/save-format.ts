// The save file: a 16-byte header, then a body that is optionally gzip-compressed.
//
//   0  "GCBW"  magic
//   4  u16     format version (1)
//   6  u16     flags: bit 0 = body gzip-compressed
//   8  u32     CRC-32 of the uncompressed body
//  12  u32     length of the uncompressed body
//  16  body:   u32 JSON length, the JSON (the snapshot with every typed array replaced by
//              {"$ta": n}, and the record fields the state table renames under their names in the
//              file; plus "arrays": [{type, offset, length}]), then, from the next 8-aligned byte
//              (offsets count from there), the arrays' bytes in the machine's byte order
//              (little-endian on every supported host).
//
// All numbers little-endian. decodeSave checks all of it and validates the snapshot, so a file that
// is not a save, or a damaged one, is refused with a clear message instead of crashing a world.
// decisions §11: a crafted file is refused before anything is allocated for it: the body at most
// what the largest allowed world needs (and no more than its header claims, compressed or not),
// array entries inside the data and not overlapping, each referenced once, the metadata nested at
// most 64 levels (the revival below recurses).
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import { LIMITS } from '../limits.ts';
import { exceedsDepth } from '../shared/json-depth.ts';
import { SnapshotError, validateSnapshot, type SandboxSnapshot } from './snapshot.ts';
import { SAVED_FIELDS } from './state.ts';
import { isObject } from './state-kinds.ts';

export const SAVE_MAGIC = 'GCBW';
export const SAVE_VERSION = 1;
const FLAG_GZIP = 1;
const HEADER_BYTES = 16;

const ARRAY_TYPES = {
  Uint8Array,
  Int8Array,
  Uint16Array,
  Int16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
  Float64Array,
} as const;
type ArrayTypeName = keyof typeof ARRAY_TYPES;
type AnyTypedArray = InstanceType<(typeof ARRAY_TYPES)[ArrayTypeName]>;

export class SaveFormatError extends Error {}

const SAVED_ARRAYS = SAVED_FIELDS.flatMap(([, field]) => field.arrays ?? []);
/** Typed arrays in a snapshot: those of the state table's saved fields. */
export const MAX_SAVE_ARRAYS = SAVED_ARRAYS.length;
/** The arrays of the largest world validateSnapshot accepts, each padded to 8 bytes. */
export const MAX_ARRAY_BYTES = SAVED_ARRAYS.reduce((sum, a) => sum + a.bytesPerElement * a.maxLength, 0) + MAX_SAVE_ARRAYS * 8;
/** The JSON metadata (kingdoms and cities are its bulk: at most 65,535 cities of ~300 bytes). */
export const MAX_METADATA_BYTES = 32 * 1024 * 1024;
/** Largest body a save may hold or inflate to: what the largest allowed world needs (~56 MiB). */
export const MAX_BODY_BYTES = 4 + MAX_METADATA_BYTES + 8 + MAX_ARRAY_BYTES;

interface ArraySpec {
  type: ArrayTypeName;
  offset: number;
  length: number;
}

function typeNameOf(v: unknown): ArrayTypeName | null {
  for (const name of Object.keys(ARRAY_TYPES) as ArrayTypeName[]) if (v instanceof ARRAY_TYPES[name]) return name;
  return null;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

export function encodeSave(snapshot: SandboxSnapshot, compress: boolean): Uint8Array {
  const arrays: AnyTypedArray[] = [];
  const specs: ArraySpec[] = [];
  const strip = (v: unknown): unknown => {
    const typeName = typeNameOf(v);
    if (typeName) {
      arrays.push(v as AnyTypedArray);
      specs.push({ type: typeName, offset: 0, length: (v as AnyTypedArray).length });
      return { $ta: arrays.length - 1 };
    }
    if (Array.isArray(v)) return v.map(strip);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(v)) out[key] = strip(value);
      return out;
    }
    return v;
  };
  // The file keeps its own names where the code renamed a part (a v0.5 reader loads it as ever).
  const named: Record<string, unknown> = { ...snapshot };
  for (const [, field] of SAVED_FIELDS) field.inFile?.write(named);
  const tree = strip(named);
  // Array offsets count from the start of the data section (the first 8-aligned byte after the JSON).
  let offset = 0;
  for (let n = 0; n < specs.length; n++) {
    specs[n]!.offset = offset;
    offset = align8(offset + arrays[n]!.byteLength);
  }
  const json = new TextEncoder().encode(JSON.stringify({ snapshot: tree, arrays: specs }));
  const dataStart = align8(4 + json.length);
  const body = new Uint8Array(dataStart + offset);
  new DataView(body.buffer).setUint32(0, json.length, true);
  body.set(json, 4);
  for (let n = 0; n < arrays.length; n++) {
    const array = arrays[n]!;
    body.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), dataStart + specs[n]!.offset);
  }
  const payload = compress ? gzipSync(body) : body;
  const out = new Uint8Array(HEADER_BYTES + payload.length);
  const header = new DataView(out.buffer);
  for (let n = 0; n < 4; n++) out[n] = SAVE_MAGIC.charCodeAt(n);
  header.setUint16(4, SAVE_VERSION, true);
  header.setUint16(6, compress ? FLAG_GZIP : 0, true);
  header.setUint32(8, crc32(body), true);
  header.setUint32(12, body.length, true);
  out.set(payload, HEADER_BYTES);
  return out;
}

function fail(reason: string): never {
  throw new SaveFormatError(reason);
}

/** Parses a save; throws SaveFormatError (not a save / damaged) naming the reason. */
export function decodeSave(bytes: Uint8Array): SandboxSnapshot {
  if (!(bytes instanceof Uint8Array)) fail('expected bytes');
  if (bytes.length < HEADER_BYTES) fail(`${bytes.length} bytes is too short for a save header`);
  for (let n = 0; n < 4; n++) if (bytes[n] !== SAVE_MAGIC.charCodeAt(n)) fail('the file does not start with the save magic "GCBW"');
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const version = header.getUint16(4, true);
  if (version !== SAVE_VERSION) fail(`save format version ${version} is not supported (this build reads ${SAVE_VERSION})`);
  const flags = header.getUint16(6, true);
  if ((flags & ~FLAG_GZIP) !== 0) fail(`unknown header flags ${flags}`);
  const crc = header.getUint32(8, true);
  const length = header.getUint32(12, true);
  if (length > MAX_BODY_BYTES) fail(`the body claims ${length} bytes, more than the largest world needs (${MAX_BODY_BYTES})`);
  const payload = bytes.subarray(HEADER_BYTES);
  let body: Uint8Array;
  if (flags & FLAG_GZIP) {
    try {
      // Never inflated past what the header claims (itself bounded above).
      body = gunzipSync(payload, { maxOutputLength: Math.max(1, length) });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') fail(`the compressed body inflates past the ${length} bytes its header claims`);
      fail(`the compressed body is damaged (${(err as Error).message})`);
    }
  } else {
    body = payload;
  }
  if (body.length !== length) fail(`the body has ${body.length} bytes, the header says ${length}`);
  if (crc32(body) !== crc) fail('the body does not match its checksum');
  if (body.length < 4) fail('the body is too short');
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const jsonLength = view.getUint32(0, true);
  if (4 + jsonLength > body.length) fail('the metadata runs past the end of the body');
  if (jsonLength > MAX_METADATA_BYTES) fail(`the metadata has ${jsonLength} bytes, more than the largest world needs (${MAX_METADATA_BYTES})`);
  const metadata = body.subarray(4, 4 + jsonLength);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(metadata);
  } catch {
    fail('the metadata is not valid UTF-8');
  }
  if (exceedsDepth(metadata, LIMITS.maxJsonDepth)) fail(`the metadata is nested deeper than ${LIMITS.maxJsonDepth} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('the metadata is not valid JSON');
  }
  const doc = parsed as { snapshot?: unknown; arrays?: unknown };
  if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.arrays)) fail('the metadata has no array table');
  const dataStart = align8(4 + jsonLength);
  if (body.length - dataStart > MAX_ARRAY_BYTES)
    fail(`the data section has ${body.length - dataStart} bytes, more than the largest world's arrays (${MAX_ARRAY_BYTES})`);
  const specs = checkArrayTable(doc.arrays as unknown[], dataStart, body.length);
  const arrays = specs.map(({ Ctor, start, byteLength }): AnyTypedArray => {
    // Copy into a fresh, aligned buffer: the body's own buffer need not be aligned for every element size.
    const copy = new Uint8Array(byteLength);
    copy.set(body.subarray(start, start + byteLength));
    return new Ctor(copy.buffer);
  });
  const referenced = new Uint8Array(arrays.length);
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive);
    if (typeof v === 'object' && v !== null) {
      const record = v as Record<string, unknown>;
      if (Object.keys(record).length === 1 && typeof record.$ta === 'number') {
        const index = record.$ta;
        const array = Number.isInteger(index) ? arrays[index] : undefined;
        if (!array) fail(`a reference names missing array ${index}`);
        // One array, one place in the world: a table entry shared by two fields would alias them.
        if (referenced[index] !== 0) fail(`array ${index} is referenced more than once`);
        referenced[index] = 1;
        return array;
      }
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(record)) out[key] = revive(value);
      return out;
    }
    return v;
  };
  const snapshot = revive(doc.snapshot);
  const unused = referenced.indexOf(0);
  if (unused !== -1) fail(`array ${unused} is in the table but nothing refers to it`);
  if (isObject(snapshot)) for (const [, field] of SAVED_FIELDS) field.inFile?.read(snapshot);
  try {
    return validateSnapshot(snapshot);
  } catch (err) {
    if (err instanceof SnapshotError) fail(`the world inside is invalid: ${err.message}`);
    throw err;
  }
}

interface CheckedArray {
  Ctor: (typeof ARRAY_TYPES)[ArrayTypeName];
  start: number;
  byteLength: number;
}

/**
 * decisions §11: the array table, checked whole before a byte is copied: at most the arrays a
 * snapshot has, each of a known type, inside the data section, and no two sharing a byte, so the
 * copies together never exceed the body (a table repeating one large entry was 16 copies of it).
 */
function checkArrayTable(table: unknown[], dataStart: number, bodyLength: number): CheckedArray[] {
  if (table.length > MAX_SAVE_ARRAYS) fail(`the array table has ${table.length} entries, more than a world has (${MAX_SAVE_ARRAYS})`);
  const checked = table.map((spec, n): CheckedArray & { n: number } => {
    const s = spec as Partial<ArraySpec>;
    if (typeof s !== 'object' || s === null || typeof s.type !== 'string' || !Object.hasOwn(ARRAY_TYPES, s.type)) fail(`array ${n} has an unknown type`);
    const Ctor = ARRAY_TYPES[s.type as ArrayTypeName];
    if (!Number.isSafeInteger(s.offset) || !Number.isSafeInteger(s.length) || s.offset! < 0 || s.length! < 0) fail(`array ${n} has a bad offset or length`);
    const byteLength = s.length! * Ctor.BYTES_PER_ELEMENT;
    const start = dataStart + s.offset!;
    if (start + byteLength > bodyLength) fail(`array ${n} runs past the end of the body`);
    return { n, Ctor, start, byteLength };
  });
  const byStart = [...checked].sort((a, b) => a.start - b.start || a.n - b.n);
  for (let i = 1; i < byStart.length; i++) {
    const before = byStart[i - 1]!;
    const here = byStart[i]!;
    if (here.byteLength > 0 && before.byteLength > 0 && here.start < before.start + before.byteLength) {
      fail(`array ${here.n} overlaps array ${before.n}: the entries of a save never share bytes`);
    }
  }
  return checked;
}
