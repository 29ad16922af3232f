/**
 * Server-side sessions in the memory store under `session:<userId>:<sessionId>`: the per-user
 * prefix makes "end every session of this user" one `deletePrefix` (admin revoke, deactivation,
 * password change), on Redis, the database store and in-process alike.
 */
import type { Config } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import { ExpiringCache } from '../../core/expiring-cache.js';
import { createRandomPool } from '../../core/random-pool.js';
import type { KeysService } from '../keys/index.js';
import { COOKIE_PURPOSE, cookieOptions, SESSION_COOKIE, SESSION_DOMAIN_COOKIE } from './cookies.js';
import type { NewSession, SessionRecord, SessionsService } from './types.js';

export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

const key = (userId: string, sessionId: string) => `session:${userId}:${sessionId}`;
/** When every session of the user was last ended (revokeAll), outside the `session:` prefix. */
const endedKey = (userId: string) => `sessions-ended:${userId}`;
/** How long that moment is kept: far longer than any sign-in takes from reading the user to storing its session. */
const ENDED_MARK_MS = 10 * 60 * 1000;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const familyOf = (s: SessionRecord) => s.family ?? s.id;
/** The session that replaced a rotated one (see `rotate`), outside the `session:` prefix. */
const successorKey = (userId: string, sessionId: string) => `session-successor:${userId}:${sessionId}`;
/**
 * How long the cookie of a rotated session still stands for the session that replaced it. Tabs
 * of one browser share the cookie and each calls `session` when it loads (the JavaScript SDK
 * does): otherwise the first call's rotation ends the session the others have just sent, and
 * they get 401s with the user still signed in (three tabs at once would get 401, 200, 200). Long enough for tabs opened together, short enough that a cookie copied before a
 * rotation is of no use after it. Access tokens of the old session are not carried over: they
 * end with it, as before.
 */
export const ROTATION_GRACE_MS = 30_000;
/**
 * Sessions issued from a browser session's family (SessionRecord.issuedFrom), outside the
 * `session:` prefix: `issuedKey` says some may be alive, and until when (Unix ms), so that a
 * revoke scans the user's sessions only when there is something to find; `familyEndedKey` says
 * the family has ended, so that one issued while the revoke scanned withdraws itself (create).
 */
const issuedKey = (userId: string, family: string) => `session-issued-from:${userId}:${family}`;
const familyEndedKey = (userId: string, family: string) => `session-family-ended:${userId}:${family}`;
/** Rotations followed from an old cookie to the live session (each within its grace). */
const MAX_SUCCESSOR_HOPS = 3;

/**
 * Records parsed from the stored text, by that text: the memory store answers a bearer
 * request's session from its own cache as the same string it read, and parsing it again was ~3%
 * of a cold bearer request's CPU (profile, 2026-11-27). Keyed by the whole text, so a changed
 * record is another entry. The records are frozen: every caller shares them.
 */
const PARSED_MAX = 5_000;

function frozenRecord(raw: string): SessionRecord | null {
  const s = JSON.parse(raw) as SessionRecord;
  if (s === null || typeof s !== 'object') return null;
  for (const list of [s.roles, s.scopes, s.amr]) if (Array.isArray(list)) Object.freeze(list);
  if (s.data) Object.freeze(s.data);
  return Object.freeze(s);
}

export function createSessionsService(config: Config, memory: MemoryStore, keys: KeysService): SessionsService {
  // The cookie attributes depend only on flags: worked out once, not per login (each call
  // parsed --url again to find the parent domain). setCookie copies them per effect.
  const liveCookie = cookieOptions(config, Math.floor(SESSION_TTL_MS / 1000));
  const clearedCookie = cookieOptions(config, 0);
  const random = createRandomPool();
  const newSessionId = () => random.id(18);
  const parsed = new ExpiringCache<string, SessionRecord>(PARSED_MAX);
  const parse = (raw: string | null): SessionRecord | null => {
    if (!raw) return null;
    const now = Date.now();
    let s = parsed.get(raw, now);
    if (s === undefined) {
      try {
        const record = frozenRecord(raw);
        if (!record || !(record.expiresAt > now)) return null;
        parsed.set(raw, record, record.expiresAt);
        s = record;
      } catch {
        return null;
      }
    }
    return s;
  };
  /** The stored text of a record: `successorOf` describes how a request reached it and is never stored. */
  const text = ({ successorOf: _reachedFrom, ...record }: SessionRecord) => JSON.stringify(record);
  const store = async (s: SessionRecord) =>
    memory.set(key(s.userId, s.id), text(s), Math.max(1, s.expiresAt - Date.now()));

  /** Ids that can name a key of this service (a `:` in the user id would reach another user's keys). */
  const wellFormed = (userId: string, sessionId: string) =>
    ID.test(sessionId) && userId.length > 0 && userId.length <= 64 && !userId.includes(':');

  // Not an async function: every bearer request looks its session up here (tokens/service.ts,
  // verifyJwtNow, has the count of what the async frames on that path cost).
  const get = (userId: string, sessionId: string): Promise<SessionRecord | null> => {
    if (!wellFormed(userId, sessionId)) return Promise.resolve(null);
    return memory.get(key(userId, sessionId)).then((raw) => {
      const s = parse(raw);
      return s && s.userId === userId && s.id === sessionId ? s : null;
    });
  };

  /**
   * The live session that replaced `sessionId` within ROTATION_GRACE_MS, marked with
   * `successorOf` (the caller answers with it and does not rotate it again), or null.
   */
  const successorOf = async (userId: string, sessionId: string): Promise<SessionRecord | null> => {
    if (!wellFormed(userId, sessionId)) return null;
    let id = sessionId;
    for (let hop = 0; hop < MAX_SUCCESSOR_HOPS; hop++) {
      const next = await memory.get(successorKey(userId, id));
      if (next === null) return null;
      const live = await get(userId, next);
      if (live) return { ...live, successorOf: sessionId };
      id = next;
    }
    return null;
  };

  const fromCookie = async (value: string | undefined): Promise<SessionRecord | null> => {
    if (!value || value.length > 512) return null;
    const opened = keys.open(value, COOKIE_PURPOSE);
    if (!opened) return null;
    try {
      const { u, s, e } = JSON.parse(opened) as { u: string; s: string; e?: number };
      if (typeof u !== 'string' || typeof s !== 'string') return null;
      const session = (await get(u, s)) ?? (await successorOf(u, s));
      // The cookie's own 24 hours (a session lasts 24 hours): the record may live
      // longer, as the family of an offline_access refresh token does, but the cookie does not.
      // A value sealed before cookies carried `e` counts from the session's creation.
      const until = typeof e === 'number' ? e : (session?.createdAt ?? 0) + SESSION_TTL_MS;
      return session && until > Date.now() ? session : null;
    } catch {
      return null;
    }
  };

  /** Notes that a session issued from its family may live until its expiry (kept at the latest one). */
  const noteIssued = async (s: SessionRecord): Promise<void> => {
    if (s.issuedFrom === undefined) return;
    const k = issuedKey(s.userId, s.issuedFrom);
    if (Number((await memory.get(k)) ?? 0) >= s.expiresAt) return;
    await memory.set(k, String(s.expiresAt), Math.max(1, s.expiresAt - Date.now()));
  };

  /**
   * Ends every session issued from `family` (an ended browser session's): the mark first, then
   * the scan, while create stores first and reads the mark after, so a redemption racing the
   * logout is either found here or withdraws itself.
   */
  const endIssuedFrom = async (userId: string, family: string): Promise<number> => {
    await memory.set(familyEndedKey(userId, family), '1', ENDED_MARK_MS);
    if ((await memory.get(issuedKey(userId, family))) === null) return 0;
    let ended = 0;
    for (const k of await memory.keys(`session:${userId}:`)) {
      const s = parse(await memory.get(k));
      if (s && s.userId === userId && s.issuedFrom === family) {
        await memory.delete(k);
        ended++;
      }
    }
    return ended;
  };

  const service: SessionsService = {
    ttlMs: SESSION_TTL_MS,
    async create(input: NewSession) {
      const t = Date.now();
      const s: SessionRecord = {
        id: newSessionId(),
        userId: input.userId,
        roles: input.roles,
        scopes: input.scopes,
        amr: input.amr,
        authTime: input.authTime ?? Math.floor(t / 1000),
        createdAt: t,
        expiresAt: t + (input.ttlMs ?? SESSION_TTL_MS),
        ...(input.clientId ? { clientId: input.clientId } : {}),
        ...(input.data ? { data: input.data } : {}),
        ...(input.issuedFrom ? { issuedFrom: input.issuedFrom } : {}),
      };
      await store(s);
      if (s.issuedFrom !== undefined) {
        await noteIssued(s);
        if ((await memory.get(familyEndedKey(s.userId, s.issuedFrom))) !== null) {
          await memory.delete(key(s.userId, s.id));
          throw new ServiceError('unauthenticated', 'the browser session that approved this sign-in has ended');
        }
      }
      if (input.readAt !== undefined) {
        const ended = Number((await memory.get(endedKey(s.userId))) ?? 0);
        if (ended >= input.readAt) {
          await memory.delete(key(s.userId, s.id));
          throw new ServiceError('unauthenticated', "the account's sessions were ended while signing in");
        }
      }
      return s;
    },
    get,
    // Both work on a copy read earlier in the request. A logout, an admin revoke or a family
    // revoke may have deleted the record since; writing the copy back would bring the session,
    // and every token of it, back to life. So extend writes only over a live
    // record, and rotate stores the new record first and then takes the old one away
    // atomically: if the old one was already gone, the new one is withdrawn. A revoke of every
    // session of the user that lands between the two deletes both.
    async extend(session, expiresAt) {
      if (expiresAt <= session.expiresAt) return (await get(session.userId, session.id)) ? session : null;
      const next = { ...session, expiresAt };
      if (!(await memory.replace(key(next.userId, next.id), text(next), Math.max(1, next.expiresAt - Date.now()))))
        return null;
      await noteIssued(next);
      return next;
    },
    // Concurrent rotations of one session elect one successor: the first to name it (an atomic
    // set-if-absent on every store) replaces the session; the others withdraw their new record
    // and answer with the elected one, which the old cookie also stands for during
    // ROTATION_GRACE_MS (see there).
    async rotate(session, changes = {}) {
      const t = Date.now();
      const { successorOf: _reachedFrom, ...current } = session;
      const next: SessionRecord = {
        ...current,
        ...changes,
        id: newSessionId(),
        family: familyOf(current),
        createdAt: t,
        expiresAt: Math.max(session.expiresAt, t + SESSION_TTL_MS),
      };
      await store(next);
      if (!(await memory.setIfAbsent(successorKey(session.userId, session.id), next.id, ROTATION_GRACE_MS))) {
        await memory.delete(key(next.userId, next.id));
        return successorOf(session.userId, session.id);
      }
      if ((await memory.consume(key(session.userId, session.id))) !== null) {
        // Every session of the user ended after the old one began (a password change, an admin
        // revoke or role change): on Redis that deletion is a SCAN and may have passed the new
        // record's slot before it was stored, after which the old one was still there to take
        // too. The mark is written before the deletion starts, so one of the two always sees the
        // other: the deletion finds the new record, or this finds the mark.
        // Not-after, not before: a session stored right after its own request ended the others
        // (update_profile's password change) is often born in the same millisecond as the mark.
        if (Number((await memory.get(endedKey(session.userId))) ?? 0) <= current.createdAt) return next;
      }
      await memory.delete(key(next.userId, next.id));
      await memory.delete(successorKey(session.userId, session.id));
      return null;
    },
    async revoke(userId, sessionId) {
      const ended = parse(await memory.consume(key(userId, sessionId)));
      if (ended && ended.userId === userId && wellFormed(userId, familyOf(ended)))
        await endIssuedFrom(userId, familyOf(ended));
    },
    // Rare (a replayed refresh token), so a scan of the user's few sessions rather than an index
    // kept on every rotation. A rotation running meanwhile is covered by rotate's order: its new
    // record is either seen here or withdrawn when the old one is found gone.
    async revokeFamily(userId, family) {
      if (!wellFormed(userId, family)) return 0;
      let ended = 0;
      for (const k of await memory.keys(`session:${userId}:`)) {
        const s = parse(await memory.get(k));
        if (s && s.userId === userId && familyOf(s) === family) {
          await memory.delete(k);
          ended++;
        }
      }
      return ended + (await endIssuedFrom(userId, family));
    },
    async revokeAll(userId) {
      // The moment first, then the deletion: a session stored after the deletion by a sign-in
      // that read the user before this moment finds it (create's readAt) and withdraws itself.
      await memory.set(endedKey(userId), String(Date.now()), ENDED_MARK_MS);
      return memory.deletePrefix(`session:${userId}:`);
    },
    async keepOnly(session) {
      const { successorOf: _reachedFrom, ...current } = session;
      const userId = current.userId;
      const ended = Date.now();
      await memory.set(endedKey(userId), String(ended), ENDED_MARK_MS);
      // Dated to the mark: rotate ends a session begun before the last ending of them all (the
      // mark is shared by every node, so a rotation elsewhere reads it too). Written over a live
      // record only, as extend does: a logout that got there first stands (writing a copy back
      // would bring a logged-out session back to life).
      const kept: SessionRecord = { ...current, createdAt: ended };
      const keptKey = key(userId, kept.id);
      const live = await memory.replace(keptKey, text(kept), Math.max(1, kept.expiresAt - Date.now()));
      // The others one by one, as revokeFamily does (a user has a few): deletePrefix would take
      // the kept one too. A rotation of the kept one running meanwhile read it before the mark,
      // so it withdraws and ends it (rotate): the caller is then signed out, never left with two.
      for (const k of await memory.keys(`session:${userId}:`)) if (!live || k !== keptKey) await memory.delete(k);
      return live ? kept : null;
    },
    cookieValue: (session) =>
      keys.seal(JSON.stringify({ u: session.userId, s: session.id, e: Date.now() + SESSION_TTL_MS }), COOKIE_PURPOSE),
    fromCookie,
    setCookies(ctx: RequestContext, session) {
      const value = service.cookieValue(session);
      ctx.setCookie(SESSION_COOKIE, value, liveCookie.host);
      ctx.setCookie(SESSION_DOMAIN_COOKIE, value, liveCookie.domain);
    },
    clearCookies(ctx: RequestContext) {
      ctx.clearCookie(SESSION_COOKIE, clearedCookie.host);
      ctx.clearCookie(SESSION_DOMAIN_COOKIE, clearedCookie.domain);
    },
    async fromRequest(ctx: RequestContext) {
      return (await fromCookie(ctx.cookie(SESSION_COOKIE))) ?? (await fromCookie(ctx.cookie(SESSION_DOMAIN_COOKIE)));
    },
    async cookieSessions(ctx: RequestContext) {
      const host = await fromCookie(ctx.cookie(SESSION_COOKIE));
      const domain = await fromCookie(ctx.cookie(SESSION_DOMAIN_COOKIE));
      const named = host ? [host] : [];
      if (domain && domain.id !== host?.id) named.push(domain);
      return named;
    },
  };
  return service;
}
