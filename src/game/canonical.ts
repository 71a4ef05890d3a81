// The canonical byte form the state hash reads: every number little-endian at a fixed place, records
// field by field in a fixed order (never by object key order), strings as their UTF-16 code units
// with a length. The same state gives the same bytes in any process on any machine.
import type { Hash } from 'node:crypto';
import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * A growable little-endian record of the small parts (counters, kingdoms, cities), reused from one
 * hash to the next so a hash allocates almost nothing.
 */
export class RecordWriter {
  private bytes = new Uint8Array(4096);
  private view = new DataView(this.bytes.buffer);
  private at = 0;

  reset(): void {
    this.at = 0;
  }

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(v: number): void {
    this.room(1);
    this.view.setUint8(this.at, v);
    this.at += 1;
  }

  bool(v: boolean): void {
    this.u8(v ? 1 : 0);
  }

  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.at, v >>> 0, true);
    this.at += 4;
  }

  /** Any number, exactly: an IEEE double, with -0 written as 0 and every NaN as one pattern. */
  num(v: number): void {
    this.room(8);
    if (Number.isNaN(v)) {
      this.view.setUint32(this.at, 0, true);
      this.view.setUint32(this.at + 4, 0x7ff80000, true);
    } else {
      this.view.setFloat64(this.at, v === 0 ? 0 : v, true);
    }
    this.at += 8;
  }

  str(s: string | null): void {
    if (s === null) {
      this.u32(0xffffffff);
      return;
    }
    this.u32(s.length);
    this.room(s.length * 2);
    for (let i = 0; i < s.length; i++) this.view.setUint16(this.at + i * 2, s.charCodeAt(i), true);
    this.at += s.length * 2;
  }

  flushInto(hash: Hash): void {
    hash.update(this.bytes.subarray(0, this.at));
    this.at = 0;
  }
}

/** The bytes of a typed array in little-endian order (a copy only on a big-endian machine). */
export function leBytes(v: ArrayBufferView & { BYTES_PER_ELEMENT: number; length: number }): Uint8Array {
  const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (LITTLE_ENDIAN || v.BYTES_PER_ELEMENT === 1) return bytes;
  const size = v.BYTES_PER_ELEMENT;
  const swapped = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += size) for (let b = 0; b < size; b++) swapped[i + b] = bytes[i + size - 1 - b]!;
  return swapped;
}
