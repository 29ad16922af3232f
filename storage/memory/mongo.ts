/**
 * The database memory store on MongoDB: one collection, `_id` the key. Each
 * operation is a single-document command, which MongoDB applies atomically:
 * findOneAndDelete for consume, a unique `_id` insert for setIfAbsent, and a pipeline update
 * that adds one to the live counter for increment (the expiry is written only by the insert
 * that opens the window).
 */
import type { MongoConnection } from '@mikro-orm/mongodb';
import type { MemoryStore } from '../../core/memory-store.js';
import type { Storage } from '../../core/storage.js';
import { MEMORY_TABLE } from '../entities/memory-entry.js';
import { ttl } from './process.js';

const SWEEP_INTERVAL_MS = 60_000;
const MAX_ATTEMPTS = 50;
const DUPLICATE_KEY = 11000;

interface Doc {
  _id: string;
  value: string;
  expiresAt: number;
}

type Coll = import('mongodb').Collection<Doc>;

export class MongoMemoryStore implements MemoryStore {
  readonly backend = 'database' as const;
  private readonly coll: Coll;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    storage: Storage,
    private readonly now: () => number = Date.now,
  ) {
    const conn = storage.orm.em.getConnection() as unknown as MongoConnection;
    this.coll = conn.getCollection<Doc>(MEMORY_TABLE);
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private live(): { $gt: number } {
    return { $gt: this.now() };
  }

  async sweep(): Promise<number> {
    return (await this.coll.deleteMany({ expiresAt: { $lte: this.now() } })).deletedCount;
  }

  async get(key: string): Promise<string | null> {
    const doc = (await this.coll.findOne({ _id: key, expiresAt: this.live() })) as Doc | null;
    return doc?.value ?? null;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.coll.updateOne({ _id: key }, { $set: { value, expiresAt: this.now() + ttl(ttlMs) } }, { upsert: true });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const expiresAt = this.now() + ttl(ttlMs);
    await this.coll.deleteOne({ _id: key, expiresAt: { $lte: this.now() } });
    return this.insert({ _id: key, value, expiresAt });
  }

  private async insert(doc: Doc): Promise<boolean> {
    try {
      await this.coll.insertOne(doc);
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  async replace(key: string, value: string, ttlMs: number): Promise<boolean> {
    const r = await this.coll.updateOne(
      { _id: key, expiresAt: this.live() },
      { $set: { value, expiresAt: this.now() + ttl(ttlMs) } },
    );
    return r.matchedCount > 0;
  }

  async consume(key: string): Promise<string | null> {
    const doc = (await this.coll.findOneAndDelete({ _id: key, expiresAt: this.live() })) as Doc | null;
    return doc?.value ?? null;
  }

  async delete(key: string): Promise<void> {
    await this.coll.deleteOne({ _id: key });
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const window = ttl(ttlMs);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = (await this.coll.findOneAndUpdate(
        { _id: key, expiresAt: this.live() },
        [{ $set: { value: { $toString: { $add: [{ $convert: { input: '$value', to: 'long', onError: 0 } }, 1] } } } }],
        { returnDocument: 'after' },
      )) as Doc | null;
      if (doc) return Number.parseInt(doc.value, 10);
      await this.coll.deleteOne({ _id: key, expiresAt: { $lte: this.now() } });
      if (await this.insert({ _id: key, value: '1', expiresAt: this.now() + window })) return 1;
    }
    throw new Error(`memory store: increment of "${key}" did not settle after ${MAX_ATTEMPTS} attempts`);
  }

  async deletePrefix(prefix: string): Promise<number> {
    return (await this.coll.deleteMany({ _id: { $regex: `^${escapeRegex(prefix)}` } })).deletedCount;
  }

  async keys(prefix: string): Promise<string[]> {
    const docs = await this.coll
      .find({ _id: { $regex: `^${escapeRegex(prefix)}` }, expiresAt: this.live() }, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .toArray();
    return docs.map((d) => String((d as { _id: unknown })._id));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
