/**
 * TOTP (RFC 6238) with otplib: setup makes a secret, its otpauth:// URI as a QR PNG data URL
 * (the `qrcode` package) and recovery codes; the secret is stored sealed by the keys service
 * (`--encryption-key`). A code is accepted once per time step (RFC 6238 §5.2).
 */
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';
import type { RequestContext } from '../../core/context.js';
import { ServiceError, failedPrecondition, unauthenticated } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import type { KeysService } from '../keys/index.js';
import type { MfaService, OtpVerifier } from '../mfa/index.js';
import type { UserRecord } from '../users/index.js';
import { createRecoveryCodes } from './recovery-codes.js';

/** One step either side of now: clocks of phones drift (RFC 6238 §5.2 recommends at most one). */
const TOLERANCE_SECONDS = 30;

/** The sealing purpose binds a secret to its user: a row copied to another user does not open. */
const purposeOf = (userId: string) => `totp-secret:${userId}`;

export interface TotpSetup {
  secret: string;
  image: string;
  recoveryCodes: string[];
}

export function createTotpService(deps: { storage: Storage; keys: KeysService; mfa: MfaService; issuer: string }) {
  const { keys, mfa, issuer } = deps;
  const recovery = createRecoveryCodes(deps.storage);

  async function setup(user: UserRecord): Promise<TotpSetup> {
    const existing = await mfa.factors.find(user.id, 'totp');
    if (existing?.verified)
      throw new ServiceError('already_exists', 'TOTP is already set up; an administrator reset removes it');
    const secret = generateSecret();
    const label = user.email ?? user.phoneNumber ?? user.id;
    const image = await QRCode.toDataURL(generateURI({ issuer, label, secret }));
    await mfa.factors.begin(user.id, 'totp', keys.seal(secret, purposeOf(user.id)));
    const recoveryCodes = await recovery.issue(user.id);
    return { secret, image, recoveryCodes };
  }

  const verifyCode: OtpVerifier = async (_ctx: RequestContext, user, otp, hint) => {
    await mfa.checkNotLocked(user.id, 'totp');
    const factor = await mfa.factors.find(user.id, 'totp');
    if (!factor || (hint.enrolledOnly && !factor.verified) || factor.secret === null)
      throw failedPrecondition('TOTP is not set up');
    const secret = keys.open(factor.secret, purposeOf(user.id));
    if (secret === null) throw failedPrecondition('TOTP is not set up');
    const token = otp.trim();
    if (/^\d{6}$/.test(token)) {
      const result = await verify({
        secret,
        token,
        epochTolerance: TOLERANCE_SECONDS,
        ...(factor.lastTimeStep !== null ? { afterTimeStep: factor.lastTimeStep } : {}),
      });
      // The conditional write refuses a step already used, also by a concurrent request.
      if (result.valid && 'timeStep' in result && (await mfa.factors.accept(factor.id, result.timeStep))) {
        await mfa.clearFailures(user.id, 'totp');
        return 'totp';
      }
    } else if (factor.verified && (await recovery.use(user.id, token))) {
      await mfa.clearFailures(user.id, 'totp');
      return 'totp';
    }
    await mfa.recordFailure(user.id, 'totp');
    throw unauthenticated('invalid otp');
  };

  return { setup, verifyCode, removeRecoveryCodes: (userId: string) => recovery.remove(userId) };
}
