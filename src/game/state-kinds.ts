// The kinds of field the world's state is made of (state.ts lists the fields, each of one kind): how
// a field is copied into a save and back, checked in a save from outside, written into the hash,
// counted in a savepoint's bytes and bounded in a save file. The walkers (snapshot.ts, savepoint.ts,
// state-hash.ts, save-format.ts) call these and name no field, so a field in the table is never
// missed by one of them.
// The loops a savepoint's take and rewind run are indexed, with no iterator: a rewind may run a few
// times only, in code not yet optimised, where an iterator costs more than the copy it drives.
import type { Hash } from 'node:crypto';
import { MAX_ZONES, ZONE_TILES } from './assets.ts';
import { leBytes, type RecordWriter } from './canonical.ts';
import type { Ui } from './ui.ts';
import { DEAD_CAP, DEAD_FIELDS, LAW_IDS, type ArrayCtor, type ArrayFields, type DeadRing, type Laws, type World } from './world.ts';

export class SnapshotError extends Error {}

export function fail(message: string): never {
  throw new SnapshotError(message);
}

/** A save's plain data (a snapshot), read by path; the fields above the one being read are checked. */
export type SaveData = Readonly<Record<string, unknown>>;

type NumberArray = Uint8Array | Uint16Array | Int16Array | Int32Array | Uint32Array | Float32Array;

/** The most tiles a world may have (a layer's and the fire list's longest). */
export const MAX_TILES = (MAX_ZONES * ZONE_TILES) ** 2;

/** A typed array a save holds: its element size and the longest a valid world has. */
export interface ArrayBound {
  bytesPerElement: number;
  maxLength: number;
}

/**
 * A field a save holds (`at`), so a savepoint too (a savepoint is a save in memory). One without
 * `at` is held by a save in another field's shape (a list's length).
 */
export interface SavedField<V, P extends string = string, S = unknown> {
  readonly family: 'saved';
  /** Where a save holds it: `key` or `group.key` (the save file's own names). */
  readonly at?: P;
  /** A copy for the save, sharing nothing with the world. */
  save?(v: V, w: World): S;
  /** Throws SnapshotError unless the save's value has the right shape (the fields above are checked). */
  check?(s: SaveData): void;
  /** A save from outside: every value too, once every field's shape is checked. */
  checkValues?(s: SaveData): void;
  /** Makes room in `w` before anything is written; false: no world may hold the save. */
  reserve?(s: SaveData, w: World): boolean;
  /** The world's value from the save; `old` (the world's current value) is reused where it fits. */
  load(s: SaveData, old: V, w: World): V;
  /** Its part of the hash's record of small values (written first, in table order). */
  head?(v: V, out: RecordWriter): void;
  /** Its part of the hash's bulk (after the record, in table order). */
  bulk?(v: V, w: World, hash: Hash): void;
  /** The bytes the save's value takes in memory: typed arrays exactly, records estimated. */
  bytes?(s: SaveData): number;
  /** Its typed arrays in a save file, for the file's bounds. */
  readonly arrays?: readonly ArrayBound[];
  /** Where the save file names its parts otherwise than the code. */
  readonly inFile?: FileNames;
}

/**
 * Renames, in a snapshot being written to a save file or just read from one, the parts whose name in
 * the file differs from the code's. `read` gets the file's untrusted data: what it does not
 * recognise it leaves for the checks to refuse.
 */
export interface FileNames {
  write(s: Record<string, unknown>): void;
  read(s: Record<string, unknown>): void;
}

/** A field a save holds under its own name `at`, as an `S`. */
export type Saves<V, P extends string, S> = SavedField<V, P, S> & { readonly at: P; save(v: V, w: World): S };

/**
 * A count the world keeps as it runs (caps read it). A save holds none: loading one recounts. A
 * savepoint keeps it as it stood, so a rewound world is the same world, not a recount of it.
 */
export interface CountedField {
  readonly family: 'counted';
  recount(w: World): number;
}

/** Interface state a savepoint keeps and puts back (a save is the world alone). */
export interface InterfaceField<V> {
  readonly family: 'interface';
  /** Its part of the hash's record; null: deliberately not hashed (say why beside it). */
  readonly head: ((v: V, out: RecordWriter) => void) | null;
  /** Puts a kept value back (default: assigns it). */
  put?(ui: Ui, v: V): void;
  /** Why a kept value cannot be put back, or null. */
  refuse?(v: V): string | null;
}

/** Not state: rebuilt, derived, or runtime plumbing; `why` says which. */
export interface RuntimeField {
  readonly family: 'runtime';
  readonly why: string;
}

export function runtime(why: string): RuntimeField {
  return { family: 'runtime', why };
}

// --- Reading and writing a save by path ----------------------------------------------------------

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads the value at `at` (`key` or `group.key`) in a save; a group on the way that is not an object
 * fails, naming it. The path is parsed once, here, not on every read.
 */
export function reader(at: string): (s: SaveData) => unknown {
  const dot = at.indexOf('.');
  if (dot === -1) return (s) => s[at];
  const name = at.slice(0, dot);
  const key = at.slice(dot + 1);
  return (s) => {
    const group = s[name];
    if (!isObject(group)) fail(`${name} must be an object`);
    return group[key];
  };
}

/** Writes a value at `at` in a save being built, making its group on first use. */
export function writer(at: string): (s: Record<string, unknown>, v: unknown) => void {
  const dot = at.indexOf('.');
  if (dot === -1) {
    return (s, v) => {
      s[at] = v;
    };
  }
  const name = at.slice(0, dot);
  const key = at.slice(dot + 1);
  return (s, v) => {
    ((s[name] ??= {}) as Record<string, unknown>)[key] = v;
  };
}

function int(v: unknown, what: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${what} must be an integer in ${min}..${max}`);
  return v;
}

function typed<A>(v: unknown, ctor: ArrayCtor<A>, what: string, length?: number): A {
  if (!(v instanceof (ctor as unknown as abstract new () => object))) fail(`${what} must be a ${ctor.name}`);
  const view = v as unknown as { length: number };
  if (length !== undefined && view.length !== length) fail(`${what} has ${view.length} entries, expected ${length}`);
  return v as A;
}

/** Tiles of the save's map (width and height come first in the table). */
export function tilesOf(s: SaveData): number {
  return (s.width as number) * (s.height as number);
}

// --- Numbers ------------------------------------------------------------------------------------

/**
 * What a number must be in a save: an integer in a range, or any finite number. `absent` is the
 * value of a field that saves made before it existed lack (its key, in a group they have).
 */
export type NumberRule = { min: number; max: number; multipleOf?: number; absent?: number } | 'finite';

/** A number the world holds as it is. */
export function scalar<const P extends string>(at: P, rule: NumberRule): Saves<number, P, number> {
  const get = reader(at);
  const absent = rule === 'finite' ? undefined : rule.absent;
  return {
    family: 'saved',
    at,
    save: (v) => v,
    check(s) {
      const v = get(s);
      if (v === undefined && absent !== undefined) return;
      if (rule === 'finite') {
        if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${at} must be a number`);
        return;
      }
      int(v, at, rule.min, rule.max);
      if (rule.multipleOf !== undefined && (v as number) % rule.multipleOf !== 0) fail(`${at} must be a multiple of ${rule.multipleOf}`);
    },
    load: (s) => (get(s) as number | undefined) ?? absent!,
    // At its value for older saves, it leaves the hash out: the worlds made before it hash as they did.
    head: (v, out) => {
      if (v !== absent) out.num(v);
    },
  };
}

/** The live length of a listed array: a save holds it as that array's length. */
export function lengthOf(at: string): SavedField<number> {
  const get = reader(at);
  return {
    family: 'saved',
    load: (s) => (get(s) as { length: number }).length,
    head: (v, out) => out.num(v),
  };
}

export function counted(recount: (w: World) => number): CountedField {
  return { family: 'counted', recount };
}

// --- Typed arrays -------------------------------------------------------------------------------

function copyInto<A extends NumberArray>(old: A, src: A, Ctor: ArrayCtor<A>): A {
  const into = old.length >= src.length ? old : new Ctor(src.length * 2);
  into.set(src);
  return into;
}

/** One value per tile; `values`, when given, bounds each value (checked in a save from outside). */
export function layer<const P extends string, A extends NumberArray>(
  at: P,
  Ctor: ArrayCtor<A>,
  values?: { max: (s: SaveData) => number; otherwise: string },
): Saves<A, P, A> {
  const get = reader(at);
  return {
    family: 'saved',
    at,
    save: (v) => v.slice() as A,
    check: (s) => void typed(get(s), Ctor, at, tilesOf(s)),
    checkValues: values
      ? (s) => {
          const v = get(s) as A;
          const max = values.max(s);
          for (let i = 0; i < v.length; i++) if (v[i]! > max) fail(`${at}[${i}] ${values.otherwise}`);
        }
      : undefined,
    load: (s, old) => copyInto(old, get(s) as A, Ctor),
    bulk: (v, _w, hash) => hash.update(leBytes(v)),
    bytes: (s) => (get(s) as A).byteLength,
    arrays: [{ bytesPerElement: Ctor.BYTES_PER_ELEMENT, maxLength: MAX_TILES }],
  };
}

/** An array of a fixed length. */
export function fixed<const P extends string, A extends NumberArray>(at: P, Ctor: ArrayCtor<A>, length: number): Saves<A, P, A> {
  const get = reader(at);
  return {
    family: 'saved',
    at,
    save: (v) => v.slice() as A,
    check: (s) => void typed(get(s), Ctor, at, length),
    load: (s, old) => copyInto(old, get(s) as A, Ctor),
    bulk: (v, _w, hash) => hash.update(leBytes(v)),
    bytes: (s) => (get(s) as A).byteLength,
    arrays: [{ bytesPerElement: Ctor.BYTES_PER_ELEMENT, maxLength: length }],
  };
}

/**
 * An array whose first `w[count]` entries are live (a lengthOf field). `entries` checks the saved
 * list against the fields above it (its length and each entry).
 */
export function listed<const P extends string, A extends NumberArray>(
  at: P,
  Ctor: ArrayCtor<A>,
  count: 'fireCount' | 'freeCount',
  maxLength: number,
  entries: (list: A, s: SaveData) => void,
): Saves<A, P, A> {
  const get = reader(at);
  return {
    family: 'saved',
    at,
    save: (v, w) => v.slice(0, w[count]) as A,
    check: (s) => entries(typed(get(s), Ctor, at), s),
    load: (s, old) => copyInto(old, get(s) as A, Ctor),
    bulk: (v, w, hash) => hash.update(leBytes(v.subarray(0, w[count]))),
    bytes: (s) => (get(s) as A).byteLength,
    arrays: [{ bytesPerElement: Ctor.BYTES_PER_ELEMENT, maxLength }],
  };
}

/**
 * A structure of arrays, each live up to the end the save holds at `endAt` (and the world in
 * `end`). `reserve` grows the world to hold them; `values` checks a save from outside.
 */
export function arrayGroup<const P extends string, T>(
  at: P,
  fields: ArrayFields<T>,
  endAt: string,
  end: (w: World) => number,
  maxLength: number,
  reserve: (w: World, length: number) => boolean,
  values: (group: T, s: SaveData) => void,
): Saves<T, P, T> {
  const names = Object.keys(fields) as Array<keyof T>;
  const savedEnd = reader(endAt) as (s: SaveData) => number;
  const arrayOf = (group: unknown, name: keyof T) => (group as Record<keyof T, NumberArray>)[name];
  const get = reader(at);
  return {
    family: 'saved',
    at,
    save(v, w) {
      const n = end(w);
      const out = {} as Record<keyof T, NumberArray>;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        out[name] = arrayOf(v, name).slice(0, n);
      }
      return out as T;
    },
    check(s) {
      const group = get(s);
      if (!isObject(group)) fail(`${at} must be an object`);
      const length = savedEnd(s);
      for (const name of names) typed(group[name as string], fields[name], `${at}.${String(name)}`, length);
    },
    checkValues: (s) => values(get(s) as T, s),
    reserve: (s, w) => reserve(w, savedEnd(s)),
    load(s, old) {
      // Entries past the end are never read before a new actor writes every field of its index.
      const group = get(s);
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        arrayOf(old, name).set(arrayOf(group, name));
      }
      return old;
    },
    bulk(v, w, hash) {
      const n = end(w);
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        hash.update(leBytes(arrayOf(v, name).subarray(0, n)));
      }
    },
    bytes(s) {
      const group = get(s);
      let bytes = 0;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        bytes += arrayOf(group, name).byteLength;
      }
      return bytes;
    },
    arrays: names.map((name) => ({ bytesPerElement: fields[name].BYTES_PER_ELEMENT, maxLength })),
  };
}

/** The ring of recent deaths: its arrays (DEAD_FIELDS) and the count of deaths ever recorded. */
export function deadRing<const P extends string>(at: P): Saves<DeadRing, P, DeadRing> {
  const names = Object.keys(DEAD_FIELDS) as Array<keyof typeof DEAD_FIELDS>;
  const get = reader(at);
  return {
    family: 'saved',
    at,
    save(v) {
      const out = {} as Record<string, unknown>;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        out[name] = v[name].slice();
      }
      out.total = v.total;
      return out as unknown as DeadRing;
    },
    check(s) {
      const ring = get(s);
      if (!isObject(ring)) fail(`${at} must be an object`);
      for (const name of names) typed(ring[name], DEAD_FIELDS[name] as ArrayCtor<NumberArray>, `${at}.${name}`, DEAD_CAP);
      int(ring.total, `${at}.total`, 0, Number.MAX_SAFE_INTEGER);
    },
    load(s, old) {
      const ring = get(s) as DeadRing;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        old[name].set(ring[name]);
      }
      old.total = ring.total;
      return old;
    },
    head: (v, out) => out.num(v.total),
    bulk(v, _w, hash) {
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        hash.update(leBytes(v[name]));
      }
    },
    bytes(s) {
      const ring = get(s) as DeadRing;
      let bytes = 0;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        bytes += ring[name].byteLength;
      }
      return bytes;
    },
    arrays: names.map((name) => ({ bytesPerElement: DEAD_FIELDS[name].BYTES_PER_ELEMENT, maxLength: DEAD_CAP })),
  };
}

// --- Small records --------------------------------------------------------------------------------

export function laws<const P extends string>(at: P): Saves<Laws, P, Laws> {
  const get = reader(at);
  return {
    family: 'saved',
    at,
    save: (v) => ({ ...v }),
    check(s) {
      const v = get(s);
      if (!isObject(v)) fail(`${at} must be an object`);
      for (const law of LAW_IDS) if (typeof v[law] !== 'boolean') fail(`${at}.${law} must be a boolean`);
    },
    load: (s) => ({ ...(get(s) as Laws) }),
    head(v, out) {
      for (const law of LAW_IDS) out.bool(v[law]);
    },
  };
}

/** How a record field is checked and hashed: a number, a string, a flag, or a list of kingdom ids. */
export type RecordFieldKind = 'num' | 'str' | 'bool' | 'kingdomIds';
type KindOf<V> = V extends number ? 'num' : V extends string ? 'str' : V extends boolean ? 'bool' : V extends readonly number[] ? 'kingdomIds' : never;
/**
 * A record field's kind; with the save file's name for it where the code's name differs, and its
 * value in the records of saves made before it existed (which lack it).
 */
export type RecordField<V> = KindOf<V> | { kind: KindOf<V>; inFile?: string; absent?: V };
/** Every field of a record type, in the order the checks and the hash walk them. */
export type RecordFields<R> = { readonly [K in keyof R]-?: RecordField<R[K]> };

interface Column {
  name: string;
  inFile: string;
  kind: RecordFieldKind;
  absent: unknown;
}

function columnsOf(fields: Record<string, RecordField<unknown> | RecordFieldKind>): Column[] {
  return Object.entries(fields).map(([name, field]) =>
    typeof field === 'string'
      ? { name, inFile: name, kind: field, absent: undefined }
      : { name, inFile: field.inFile ?? name, kind: field.kind, absent: field.absent },
  );
}

/** Rough bytes of a plain record: 8 a number or flag, 2 a character, 16 of object overhead. */
function recordBytes(r: object): number {
  let n = 16;
  for (const v of Object.values(r) as unknown[]) {
    if (typeof v === 'string') n += 8 + v.length * 2;
    else if (Array.isArray(v)) n += 16 + v.length * 8;
    else n += 8;
  }
  return n;
}

const TYPE_OF_KIND = { num: 'number', str: 'string', bool: 'boolean' } as const;

/** A record's keys renamed by `names` (the others kept), for the save file's names and back. */
function renamed(rec: unknown, names: ReadonlyMap<string, string>): unknown {
  if (!isObject(rec)) return rec;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(rec)) out[names.get(key) ?? key] = v;
  return out;
}

/**
 * A list of records indexed by id - 1 (ids are never reused). `each` checks what the kinds alone
 * cannot (references to other records, places on the map); `max` caps the count a world can reach.
 * A snapshot holds the records under the code's names (a copy is a spread); a save file holds
 * the fields an `inFile` entry names under that name (`inFile` below).
 */
export function records<const P extends string, R extends { id: number }>(
  at: P,
  fields: RecordFields<R>,
  max: number,
  each?: (rec: R, what: string, s: SaveData) => void,
): Saves<R[], P, R[]> & { readonly inFile: FileNames } {
  const columns = columnsOf(fields as unknown as Record<string, RecordField<unknown>>);
  const lists = columns.filter((c) => c.kind === 'kingdomIds').map((c) => c.name);
  const defaults = columns.filter((c) => c.absent !== undefined);
  // A spread is the fast copy of a record (same shape, no dictionary); its lists are copied after.
  const copy =
    lists.length === 0
      ? (rec: R): R => ({ ...rec })
      : (rec: R): R => {
          const out = { ...rec } as unknown as Record<string, number[]>;
          for (let i = 0; i < lists.length; i++) out[lists[i]!] = out[lists[i]!]!.slice();
          return out as unknown as R;
        };
  const toFile = new Map(columns.filter((c) => c.inFile !== c.name).map((c) => [c.name, c.inFile]));
  const fromFile = new Map([...toFile].map(([name, inFile]) => [inFile, name]));
  const get = reader(at);
  const put = writer(at);
  const rename = (s: Record<string, unknown>, names: ReadonlyMap<string, string>) => {
    const list = get(s);
    if (names.size > 0 && Array.isArray(list))
      put(
        s,
        list.map((rec: unknown) => renamed(rec, names)),
      );
  };
  return {
    family: 'saved',
    at,
    save: (v) => v.map(copy),
    check(s) {
      const list = get(s);
      if (!Array.isArray(list)) fail(`${at} must be an array`);
      // decisions §11: counts a world can reach, so nothing sized by them grows past a real world.
      if (list.length > max) fail(`${at} has ${list.length} entries, more than a world can hold (${max})`);
      const kingdoms = lists.length > 0 ? (s.kingdoms as unknown[]).length : 0;
      list.forEach((rec: unknown, n) => {
        const what = `${at}[${n}]`;
        if (!isObject(rec)) fail(`${what} must be an object`);
        for (const c of columns) {
          const v = rec[c.name];
          if (v === undefined && c.absent !== undefined) continue;
          if (c.kind === 'kingdomIds') {
            if (!Array.isArray(v) || v.some((id) => !Number.isInteger(id) || id < 1 || id > kingdoms)) fail(`${what}.${c.name} is invalid`);
          } else if (typeof v !== TYPE_OF_KIND[c.kind]) fail(`${what}.${c.name} must be a ${TYPE_OF_KIND[c.kind]}`);
        }
        if (rec.id !== n + 1) fail(`${what}.id must be ${n + 1}`);
        each?.(rec as unknown as R, what, s);
      });
    },
    load: (s) => {
      const list = (get(s) as R[]).map(copy);
      // Records of a save made before a field existed get its value for then.
      for (const c of defaults) for (const rec of list as unknown as Array<Record<string, unknown>>) rec[c.name] ??= structuredClone(c.absent);
      return list;
    },
    inFile: { write: (s) => rename(s, toFile), read: (s) => rename(s, fromFile) },
    head(v, out) {
      out.u32(v.length);
      for (const rec of v) {
        const r = rec as unknown as Record<string, unknown>;
        for (const c of columns) {
          const x = r[c.name];
          // As a number above: at its value for older saves, a field leaves the hash as it was before it.
          if (c.absent !== undefined && x === c.absent) continue;
          if (c.kind === 'num') out.num(x as number);
          else if (c.kind === 'str') out.str(x as string);
          else if (c.kind === 'bool') out.bool(x as boolean);
          else {
            out.u32((x as number[]).length);
            for (const id of x as number[]) out.num(id);
          }
        }
      }
    },
    bytes(s) {
      let bytes = 0;
      for (const rec of get(s) as object[]) bytes += recordBytes(rec);
      return bytes;
    },
  };
}

// --- Interface ----------------------------------------------------------------------------------

export function kept<V>(head: InterfaceField<V>['head'], more: Pick<InterfaceField<V>, 'put' | 'refuse'> = {}): InterfaceField<V> {
  return { family: 'interface', head, ...more };
}
