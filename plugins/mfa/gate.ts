/**
 * The MFA sign-in gate (docs/mfa.md): one step every login path runs through the sign-in service.
 * It decides the state of a completed first factor:
 *   none     MFA off, no factor plugin, or the user neither enrolled nor asked for MFA
 *   verify   a verified factor exists: a second factor is asked for
 *   enroll   `--enforce-mfa` and none set up: a factor must be set up first
 *   offer    the user turned MFA on, has none and has not skipped the offer
 *   skipped  the user declined the offer (`skip_mfa_setup`): as none
 * In verify, enroll and offer no session is started: the `mfa` cookie names the kept attempt and
 * the AuthResponse flags say which screens and offers apply.
 */
import type { RequestContext } from '../../core/context.js';
import { permissionDenied } from '../../core/errors.js';
import type { AuthResult, SignInAttempt } from '../sign-in/index.js';
import type { UserRecord } from '../users/index.js';
import type { PendingStore } from './pending.js';
import type { MfaFactor, MfaMethod, PendingState } from './types.js';

export const mfaLocked = () =>
  permissionDenied('multi-factor authentication is locked for this account; an administrator must reset it');

export interface GateOptions {
  /** `--disable-mfa` off. */
  on: boolean;
  enforce: boolean;
  factors: () => readonly MfaFactor[];
  pending: PendingStore;
}

/** The gate state of a user, with the factors it is about. */
export async function gateState(
  user: UserRecord,
  o: GateOptions,
): Promise<{ state: PendingState | 'none' | 'skipped'; factors: MfaFactor[] }> {
  const factors = o.factors();
  if (!o.on || factors.length === 0) return { state: 'none', factors: [] };
  const enrolled: MfaFactor[] = [];
  for (const f of factors) if (await f.enrolled(user)) enrolled.push(f);
  if (enrolled.length > 0) return { state: 'verify', factors: enrolled };
  const offerable = factors.filter((f) => f.offerable(user));
  // Nothing this user could set up: a gate that cannot be passed would lock the account out.
  if (offerable.length === 0) return { state: 'none', factors: [] };
  if (o.enforce) return { state: 'enroll', factors: offerable };
  if (user.isMultiFactorAuthEnabled !== true) return { state: 'none', factors: [] };
  if (user.hasSkippedMfaSetupAt !== null) return { state: 'skipped', factors: [] };
  return { state: 'offer', factors: offerable };
}

const MESSAGES: Record<PendingState, string> = {
  verify: 'Please verify the second factor to finish signing in',
  enroll: 'Please set up multi-factor authentication to finish signing in',
  offer: 'Multi-factor authentication can be set up now, or skipped',
};

/** The AuthResponse flags of a state: which screens and offers the client shows next. */
export function flagsOf(state: PendingState, factors: readonly MfaFactor[]): AuthResult {
  const has = (m: MfaMethod) => factors.some((f) => f.method === m);
  const out: AuthResult = { message: MESSAGES[state] };
  if (state === 'verify') {
    if (has('email_otp')) out.should_show_email_otp_screen = true;
    if (has('sms_otp')) out.should_show_mobile_otp_screen = true;
    if (has('totp')) out.should_show_totp_screen = true;
    if (has('webauthn')) out.should_offer_webauthn_mfa_verify = true;
    return out;
  }
  if (has('email_otp')) out.should_offer_email_otp_mfa_setup = true;
  if (has('sms_otp')) out.should_offer_sms_otp_mfa_setup = true;
  if (has('webauthn')) out.should_offer_webauthn_mfa_setup = true;
  return out;
}

export function createGate(o: GateOptions) {
  return async (ctx: RequestContext, attempt: SignInAttempt): Promise<AuthResult | undefined> => {
    if (!o.on) return undefined;
    if (attempt.user.mfaLockedAt !== null) throw mfaLocked();
    // A passkey sign-in proves possession of a hardware-bound key with user presence: it is a
    // second factor in itself (RFC 8176 `hwk`), and asking for another would only add a step.
    if (attempt.amr.includes('hwk')) return undefined;
    const { state, factors } = await gateState(attempt.user, o);
    if (state === 'none' || state === 'skipped') return undefined;
    await o.pending.open(ctx, attempt, state);
    if (state === 'verify') for (const f of factors) await f.challenge?.(ctx, attempt.user);
    return flagsOf(state, factors);
  };
}
