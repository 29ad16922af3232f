/** The `mfa` service: the gate, pending sign-ins, the factor registry, lockouts and enrolled methods. */
import type { Config } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { invalidArgument, permissionDenied, unauthenticated } from '../../core/errors.js';
import type { EventBus } from '../../core/events.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { Storage } from '../../core/storage.js';
import { loginEvent, type SignInService } from '../sign-in/index.js';
import type { UserRecord, UsersService } from '../users/index.js';
import { createFactorStore } from './factor-store.js';
import { createFailureCounter } from './failures.js';
import { createGate, mfaLocked } from './gate.js';
import { createPendingStore } from './pending.js';
import type { MfaFactor, MfaMethod, MfaService, OtpHint, OtpVerifier } from './types.js';

export interface MfaDeps {
  config: Config;
  storage: Storage;
  memory: MemoryStore;
  events: EventBus;
  users: UsersService;
  signIn: SignInService;
}

export const revokedAccess = () => permissionDenied('user access has been revoked');

export function createMfaService({ config, storage, memory, events, users, signIn }: MfaDeps): MfaService {
  const factorList: MfaFactor[] = [];
  const verifiers = new Map<'totp' | 'otp', OtpVerifier>();
  const pendingStore = createPendingStore(memory, config);
  const failures = createFailureCounter(memory);
  const on = !config.bool('disable-mfa');
  const gate = createGate({
    on,
    enforce: config.bool('enforce-mfa'),
    factors: () => factorList,
    pending: pendingStore,
  });

  /** The given email or phone number must be the user's own (a code or factor is never someone else's). */
  function checkHint(user: UserRecord, hint: OtpHint): void {
    if (hint.email !== undefined && hint.email !== '') {
      let email: string;
      try {
        email = users.normalizeEmail(hint.email);
      } catch {
        throw invalidArgument('invalid email');
      }
      if (email !== user.email) throw permissionDenied('the email is not the one of this sign-in');
    }
    if (hint.phone_number !== undefined && hint.phone_number !== '') {
      let phone: string;
      try {
        phone = users.normalizePhone(hint.phone_number);
      } catch {
        throw invalidArgument('invalid phone_number');
      }
      if (phone !== user.phoneNumber) throw permissionDenied('the phone number is not the one of this sign-in');
    }
  }

  async function liveUser(id: string): Promise<UserRecord> {
    const user = await users.findById(id, { fresh: true });
    if (!user) throw unauthenticated('unauthorized');
    if (user.revokedTimestamp !== null) throw revokedAccess();
    if (user.mfaLockedAt !== null) throw mfaLocked();
    return user;
  }

  const service: MfaService = {
    gate,
    factors: createFactorStore(storage),
    addFactor: (f) => void factorList.push(f),
    addOtpVerifier: (kind, v) => void verifiers.set(kind, v),
    verifier: (kind) => verifiers.get(kind),
    isOn: (method: MfaMethod) => on && factorList.some((f) => f.method === method),
    pending: (ctx) => pendingStore.read(ctx),
    liveUser,
    checkHint,
    renew: (ctx, pending) => pendingStore.renew(ctx, pending),
    async discard(ctx, pending) {
      pendingStore.clearCookie(ctx);
      return pendingStore.take(pending);
    },

    async complete(ctx, pending, amr, message) {
      const user = await liveUser(pending.userId);
      // Single use: a cookie replayed after its sign-in completed starts nothing.
      if (!(await pendingStore.take(pending)))
        throw unauthenticated('the multi-factor sign-in has expired; sign in again');
      pendingStore.clearCookie(ctx);
      return signIn.startSession(ctx, {
        user,
        method: pending.method,
        roles: pending.roles,
        scopes: pending.scopes,
        amr: amr === null ? pending.amr : [...new Set([...pending.amr, amr, 'mfa'])],
        message,
        ...(pending.readAt !== undefined ? { readAt: pending.readAt } : {}),
        within: loginEvent(events, pending.method),
      });
    },

    async enrollee(ctx: RequestContext, hint: OtpHint) {
      const principal = await ctx.kernel.authenticate('session', ctx, undefined);
      if (principal?.kind === 'user' && principal.userId) {
        const user = await liveUser(principal.userId);
        checkHint(user, hint);
        return { user, pending: null };
      }
      const pending = await pendingStore.read(ctx);
      // Only a first-time offer (or an enforced setup) may add a factor without a session: in
      // `verify` a new factor would step around the one already set up.
      if (!pending || pending.state === 'verify') throw unauthenticated('unauthorized');
      const user = await liveUser(pending.userId);
      checkHint(user, hint);
      return { user, pending };
    },

    async resetUser(userId, refresh) {
      for (const f of factorList) await f.reset(userId);
      await service.factors.remove(userId);
      for (const m of ['totp', 'webauthn', 'email_otp', 'sms_otp'] as const) await failures.clear(userId, m);
      if (refresh) await service.refreshEnrolled(userId);
    },

    checkNotLocked: (userId, method) => failures.check(userId, method),
    recordFailure: (userId, method) => failures.record(userId, method),
    clearFailures: (userId, method) => failures.clear(userId, method),

    async refreshEnrolled(userId) {
      const user = await users.findById(userId, { fresh: true });
      if (!user) return null;
      const methods: MfaMethod[] = [];
      for (const f of factorList) if (await f.enrolled(user)) methods.push(f.method);
      const before = user.enrolledMfaMethods ?? [];
      const same = before.length === methods.length && methods.every((m) => before.includes(m));
      const turnOn = methods.length > 0 && user.isMultiFactorAuthEnabled !== true;
      if (same && !turnOn) return user;
      const { after } = await users.update(userId, {
        enrolled_mfa_methods: methods,
        ...(turnOn ? { is_multi_factor_auth_enabled: true } : {}),
      });
      return after;
    },
  };
  return service;
}
