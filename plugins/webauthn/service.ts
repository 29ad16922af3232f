/**
 * Passkey ceremonies with @simplewebauthn/server: registration (signed-in caller, or a pending
 * first-time MFA offer) and authentication (a second factor of a pending sign-in, or a
 * passwordless sign-in; usernameless when no email is given). Every challenge is single use and
 * bound to the user it was made for; signature counters must move forward (WebAuthn §6.1.1).
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { RequestContext } from '../../core/context.js';
import type { EventBus } from '../../core/events.js';
import { invalidArgument, permissionDenied, unauthenticated } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import { loginEvent, type AuthResult } from '../sign-in/index.js';
import type { MfaService } from '../mfa/index.js';
import type { UserRecord, UsersService } from '../users/index.js';
import type { CredentialStore } from './credentials.js';
import type { RelyingParty } from './relying-party.js';
import { challengeOf, parseAuthentication, parseRegistration } from './responses.js';

/** A ceremony must finish within five minutes (WebAuthn §5.4.1 recommends up to 10). */
const CEREMONY_MS = 5 * 60_000;
const REG = 'webauthn:registration:';
const AUTH = 'webauthn:authentication:';
/** The scopes of a passkey sign-in, as a password login without `scope` gets. */
const SIGN_IN_SCOPES = ['openid', 'email', 'profile'];

interface RegistrationCeremony {
  userId: string;
}
interface AuthenticationCeremony {
  /** Set when the options named a user (an email, or the pending sign-in's user). */
  userId?: string;
  /**
   * The second factor of a pending password sign-in. Otherwise the passkey is the whole sign-in,
   * and then the authenticator must verify the user (PIN or biometrics): possession alone would
   * be one factor where the MFA gate counts a passkey as two.
   */
  secondFactor?: boolean;
}

const ceremonyFailed = () => unauthenticated('passkey verification failed');
const unknownChallenge = () => unauthenticated('the passkey challenge is unknown or expired');

export interface WebauthnDeps {
  rp: RelyingParty;
  memory: MemoryStore;
  events: EventBus;
  users: UsersService;
  mfa: MfaService;
  credentials: CredentialStore;
}

export function createWebauthnService(d: WebauthnDeps) {
  const { rp, memory, users, mfa, credentials } = d;
  const userHandle = (userId: string) => Buffer.from(userId, 'utf8').toString('base64url');

  async function registrationOptions(ctx: RequestContext, hint: { email?: string; phone_number?: string }) {
    const { user } = await mfa.enrollee(ctx, hint);
    const existing = await credentials.list(user.id);
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: user.email ?? user.phoneNumber ?? user.id,
      userID: new Uint8Array(Buffer.from(user.id, 'utf8')),
      userDisplayName: user.givenName ?? user.email ?? user.phoneNumber ?? '',
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
      // Discoverable credentials make the usernameless sign-in possible (WebAuthn §6.2.2).
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      timeout: CEREMONY_MS,
    });
    const ceremony: RegistrationCeremony = { userId: user.id };
    await memory.set(REG + options.challenge, JSON.stringify(ceremony), CEREMONY_MS);
    return { options: JSON.stringify(options) };
  }

  async function registrationVerify(
    ctx: RequestContext,
    input: { credential: string; name?: string; email?: string; phone_number?: string },
  ): Promise<AuthResult> {
    const { user, pending } = await mfa.enrollee(ctx, input);
    const response = parseRegistration(input.credential);
    const challenge = challengeOf(response);
    const stored = await memory.get(REG + challenge);
    if (stored === null) throw unknownChallenge();
    const ceremony = JSON.parse(stored) as RegistrationCeremony;
    if (ceremony.userId !== user.id) throw unknownChallenge();
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
    } catch {
      throw ceremonyFailed();
    }
    if (!verified.verified) throw ceremonyFailed();
    // Taken only now: a forged or mistaken response leaves the ceremony open for the real one;
    // of two uses of one response only the first gets here.
    if ((await memory.consume(REG + challenge)) === null) throw unknownChallenge();
    const { credential } = verified.registrationInfo;
    await credentials.add({
      credentialId: credential.id,
      userId: user.id,
      name: input.name?.trim() || 'Passkey',
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
    });
    const updated = (await mfa.refreshEnrolled(user.id)) ?? user;
    // On the MFA-cookie path the withheld tokens are issued; otherwise access_token is null.
    if (pending) return mfa.complete(ctx, pending, 'hwk', 'Passkey registered successfully');
    return { message: 'Passkey registered successfully', user: users.toUserDto(updated) };
  }

  async function loginOptions(ctx: RequestContext, email: string | undefined) {
    let user: UserRecord | null = null;
    let secondFactor = false;
    if (email !== undefined && email !== '') {
      let normalized: string;
      try {
        normalized = users.normalizeEmail(email);
      } catch {
        throw invalidArgument('invalid email');
      }
      user = await users.findByEmail(normalized);
    } else {
      const pending = await mfa.pending(ctx);
      if (pending?.state === 'verify') {
        user = await users.findById(pending.userId, { fresh: true });
        secondFactor = user !== null;
      }
    }
    // An unknown email gets the same options as a usernameless request: nothing tells whether an account exists.
    const allow = user ? await credentials.list(user.id) : [];
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: secondFactor ? 'preferred' : 'required',
      timeout: CEREMONY_MS,
      ...(allow.length > 0
        ? { allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports })) }
        : {}),
    });
    const ceremony: AuthenticationCeremony = {
      ...(user && allow.length > 0 ? { userId: user.id } : {}),
      ...(secondFactor ? { secondFactor } : {}),
    };
    await memory.set(AUTH + options.challenge, JSON.stringify(ceremony), CEREMONY_MS);
    return { options: JSON.stringify(options) };
  }

  async function loginVerify(ctx: RequestContext, input: { credential: string }): Promise<AuthResult> {
    const response = parseAuthentication(input.credential);
    const challenge = challengeOf(response);
    const stored = await memory.get(AUTH + challenge);
    if (stored === null) throw unknownChallenge();
    const ceremony = JSON.parse(stored) as AuthenticationCeremony;
    const credential = await credentials.byCredentialId(response.id);
    if (!credential) throw ceremonyFailed();
    if (ceremony.userId !== undefined && ceremony.userId !== credential.userId) throw ceremonyFailed();
    // A discoverable credential names its user (WebAuthn §7.2 step 6): it must be the owner.
    const handle = response.response.userHandle;
    if (handle && handle !== userHandle(credential.userId)) throw ceremonyFailed();
    // Made for a pending sign-in, the assertion finishes that one or nothing: without user
    // verification it must not stand for a whole sign-in.
    const pending = ceremony.secondFactor ? await mfa.pending(ctx) : null;
    if (ceremony.secondFactor && (!pending || pending.state !== 'verify' || pending.userId !== credential.userId))
      throw unauthenticated('the multi-factor sign-in has expired; sign in again');
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: credential.credentialId,
          publicKey: credential.publicKey,
          counter: credential.counter,
          transports: credential.transports,
        },
        requireUserVerification: ceremony.secondFactor !== true,
      });
    } catch {
      throw ceremonyFailed();
    }
    if (!verified.verified) throw ceremonyFailed();
    if ((await memory.consume(AUTH + challenge)) === null) throw unknownChallenge();
    if (!(await credentials.recordUse(credential, verified.authenticationInfo.newCounter))) throw ceremonyFailed();
    const readAt = Date.now();
    const user = await users.findById(credential.userId, { fresh: true });
    if (!user) throw ceremonyFailed();
    if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
    if (pending) return mfa.complete(ctx, pending, 'hwk', 'Multi factor authentication verified successfully');
    return ctx.kernel.service('sign-in').complete(ctx, {
      user,
      method: 'webauthn',
      roles: user.roles,
      scopes: SIGN_IN_SCOPES,
      amr: ['hwk'],
      message: 'Logged in successfully',
      readAt,
      within: loginEvent(d.events, 'webauthn'),
    });
  }

  return { registrationOptions, registrationVerify, loginOptions, loginVerify };
}

export type WebauthnService = ReturnType<typeof createWebauthnService>;
