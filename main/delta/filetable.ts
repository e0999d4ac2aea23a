// The replay's live files, keyed by reconciliation key, in insertion order: the subset of Map that
// replay needs. A 300k-file log inserts 300k fresh keys once; an open-addressing table over typed
// arrays with our own string hash does that at about half the cost of a Map (no per-key string
// hashing by the engine, no growth of an ordered hash table of objects).

/** FNV-1a over the UTF-16 code units of a key. */
export function hashKey(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h | 0;
}

/**
 * A key, or an object holding it (a fast-path add whose path is decoded only when compared), or
 * a row number that the table's resolver turns into its key and value (no object per entry).
 */
export type KeyRef = string | { readonly path: string } | number;

export interface RowResolver<V> {
  keyOf(row: number): string;
  valueOf(row: number): V;
}

const EMPTY = -1;
const DELETED = -2;

export class FileTable<V extends object> {
  constructor(private resolver: RowResolver<V> | null = null) {}
  /** Slot -> index into the order arrays, EMPTY or DELETED. */
  private slots = new Int32Array(1024).fill(EMPTY);
  private used = 0; // slots not EMPTY (live + DELETED)
  private keys: (KeyRef | undefined)[] = [];
  private hashes: number[] = [];
  private vals: (V | number | undefined)[] = [];
  private live = 0;

  get size(): number {
    return this.live;
  }

  private keyText(k: KeyRef): string {
    return typeof k === 'string' ? k : typeof k === 'number' ? (this.resolver as RowResolver<V>).keyOf(k) : k.path;
  }

  private value(v: V | number | undefined): V | undefined {
    return typeof v === 'number' ? (this.resolver as RowResolver<V>).valueOf(v) : v;
  }

  private same(j: number, key: KeyRef): boolean {
    const k = this.keys[j] as KeyRef;
    return k === key || this.keyText(k) === this.keyText(key);
  }

  private find(key: KeyRef, h: number): number {
    const mask = this.slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const j = this.slots[s];
      if (j === EMPTY) return -1;
      if (j >= 0 && this.hashes[j] === h && this.same(j, key)) return s;
    }
  }

  get(key: KeyRef, h = hashKey(this.keyText(key))): V | undefined {
    const s = this.find(key, h);
    return s < 0 ? undefined : this.value(this.vals[this.slots[s]]);
  }

  has(key: KeyRef, h = hashKey(this.keyText(key))): boolean {
    return this.find(key, h) >= 0;
  }

  /** Sets a key; an existing key keeps its place in the order (as Map.set does). A row number as
   *  the value stands for the resolver's value of that row. */
  set(key: KeyRef, v: V | number, h = hashKey(this.keyText(key))): void {
    this.swapRaw(key, v, h);
  }

  /** set(), returning what the key held before as stored (a row number stays a number; undefined: new key). */
  swapRaw(key: KeyRef, v: V | number, h = hashKey(this.keyText(key))): V | number | undefined {
    const mask = this.slots.length - 1;
    let free = -1;
    let s = h & mask;
    for (; ; s = (s + 1) & mask) {
      const j = this.slots[s];
      if (j === EMPTY) break;
      if (j === DELETED) { if (free < 0) free = s; continue; }
      if (this.hashes[j] === h && this.same(j, key)) { const prev = this.vals[j]; this.vals[j] = v; return prev; }
    }
    if (free >= 0) s = free; else this.used++;
    this.slots[s] = this.keys.length;
    this.keys.push(key);
    this.hashes.push(h);
    this.vals.push(v);
    this.live++;
    if (this.used * 2 > this.slots.length) this.rebuild(this.slots.length * 2);
    return undefined;
  }

  delete(key: KeyRef, h = hashKey(this.keyText(key))): boolean {
    return this.takeRaw(key, h) !== undefined;
  }

  /** Deletes a key in one lookup and returns what it held as stored (undefined: not there). */
  takeRaw(key: KeyRef, h = hashKey(this.keyText(key))): V | number | undefined {
    const s = this.find(key, h);
    if (s < 0) return undefined;
    const j = this.slots[s];
    const prev = this.vals[j];
    this.slots[s] = DELETED;
    this.keys[j] = undefined;
    this.vals[j] = undefined;
    this.live--;
    // Many removes (a rewrite of the whole table): drop the holes from the order arrays.
    if (this.keys.length > 1024 && this.live * 2 < this.keys.length) this.rebuild(this.slots.length);
    return prev;
  }

  /** A stored value as a value (a row number through the resolver). */
  resolve(raw: V | number): V {
    return this.value(raw) as V;
  }

  /** Room for `n` more keys without growing step by step (a commit of 100k adds). */
  reserve(n: number): void {
    let cap = this.slots.length;
    while ((this.used + n) * 2 > cap) cap *= 2;
    if (cap !== this.slots.length) this.rebuild(cap);
  }

  /** Re-inserts the live keys in order into `cap` slots (no DELETED left, holes dropped). */
  private rebuild(cap: number): void {
    while (this.live * 2 > cap) cap *= 2;
    if (this.live === this.keys.length) {
      // No holes: only the slots change.
      const slots = new Int32Array(cap).fill(EMPTY);
      const mask = cap - 1;
      for (let j = 0; j < this.hashes.length; j++) {
        let s = this.hashes[j] & mask;
        while (slots[s] !== EMPTY) s = (s + 1) & mask;
        slots[s] = j;
      }
      this.slots = slots;
      this.used = this.live;
      return;
    }
    const keys: (KeyRef | undefined)[] = [];
    const hashes: number[] = [];
    const vals: (V | number | undefined)[] = [];
    const slots = new Int32Array(cap).fill(EMPTY);
    const mask = cap - 1;
    for (let j = 0; j < this.keys.length; j++) {
      const k = this.keys[j];
      if (k === undefined) continue;
      const h = this.hashes[j];
      let s = h & mask;
      while (slots[s] !== EMPTY) s = (s + 1) & mask;
      slots[s] = keys.length;
      keys.push(k);
      hashes.push(h);
      vals.push(this.vals[j]);
    }
    this.slots = slots;
    this.keys = keys;
    this.hashes = hashes;
    this.vals = vals;
    this.used = keys.length;
  }

  /** A copy; rows resolve through `resolver` (the copy's owner). */
  clone(resolver: RowResolver<V> | null = this.resolver): FileTable<V> {
    const t = new FileTable<V>(resolver);
    t.slots = this.slots.slice();
    t.used = this.used;
    t.keys = this.keys.slice();
    t.hashes = this.hashes.slice();
    t.vals = this.vals.slice();
    t.live = this.live;
    return t;
  }

  /** The live values in insertion order, as a new array; rows stay row numbers. */
  rawValuesArray(): (V | number)[] {
    const out = new Array<V | number>(this.live);
    let i = 0;
    for (let j = 0; j < this.vals.length; j++) if (this.keys[j] !== undefined) out[i++] = this.vals[j] as V | number;
    return out;
  }

  /** The live values in insertion order, as a new array. */
  valuesArray(): V[] {
    const out = new Array<V>(this.live);
    let i = 0;
    for (let j = 0; j < this.vals.length; j++) if (this.keys[j] !== undefined) out[i++] = this.value(this.vals[j]) as V;
    return out;
  }

  *values(): IterableIterator<V> {
    for (let j = 0; j < this.vals.length; j++) if (this.keys[j] !== undefined) yield this.value(this.vals[j]) as V;
  }

  *entries(): IterableIterator<[string, V]> {
    for (let j = 0; j < this.vals.length; j++) {
      const k = this.keys[j];
      if (k !== undefined) yield [this.keyText(k), this.value(this.vals[j]) as V];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}
