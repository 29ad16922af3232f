/** Email and SMS OTP as MFA factors: explicit enrollment, codes sent on demand, `verify_otp` checks. */
import type { RequestContext } from '../../core/context.js';
import { ServiceError, failedPrecondition, invalidArgument, unauthenticated } from '../../core/errors.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { MfaService, OtpHint, OtpVerifier } from '../mfa/index.js';
import type { UserRecord } from '../users/index.js';
import type { OtpChannel, OtpMethod } from './channels.js';
import { CODE_TTL_MS, type CodeStore } from './codes.js';

/** Resends per user and channel in a window: a code request mails or texts someone. */
const MAX_SENDS = 5;
const SEND_WINDOW_MS = 10 * 60_000;

const LABEL: Record<OtpMethod, string> = { email_otp: 'email', sms_otp: 'SMS' };

export function createOtpFactors(deps: {
  mfa: MfaService;
  memory: MemoryStore;
  codes: CodeStore;
  channels: Record<OtpMethod, OtpChannel>;
}) {
  const { mfa, memory, codes, channels } = deps;
  const usable = (c: OtpChannel) => c.on && c.ready();

  /** Sends a fresh code, within the send limits. */
  async function send(ctx: RequestContext, method: OtpMethod, user: UserRecord): Promise<void> {
    const channel = channels[method];
    if (!usable(channel)) throw failedPrecondition(`${LABEL[method]} codes are not available`);
    if (!channel.addressOf(user))
      throw invalidArgument(`the account has no ${method === 'email_otp' ? 'email address' : 'phone number'}`);
    const sent = await memory.increment(`mfa-otp:sends:${method}:${user.id}`, SEND_WINDOW_MS);
    if (sent > MAX_SENDS) throw new ServiceError('resource_exhausted', 'too many codes requested, try again later');
    await channel.limit(ctx, user);
    // Taken before the code is issued: the stated end of use is never after the code's.
    const expiresAt = Date.now() + CODE_TTL_MS;
    const code = await codes.issue(method, user.id);
    await channel.deliver(user, code, expiresAt);
  }

  /** Which channel a code or resend is about: the one named by the hint, else the one with a live code. */
  async function channelFor(user: UserRecord, hint: OtpHint): Promise<OtpMethod> {
    if (hint.phone_number) return 'sms_otp';
    if (hint.email) return 'email_otp';
    if (await codes.live('email_otp', user.id)) return 'email_otp';
    if (await codes.live('sms_otp', user.id)) return 'sms_otp';
    return usable(channels.email_otp) ? 'email_otp' : 'sms_otp';
  }

  const verify: OtpVerifier = async (_ctx, user, otp, hint) => {
    const method = await channelFor(user, hint);
    if (!usable(channels[method])) throw failedPrecondition(`${LABEL[method]} codes are not available`);
    await mfa.checkNotLocked(user.id, method);
    const factor = await mfa.factors.find(user.id, method);
    if (!factor || (hint.enrolledOnly && !factor.verified))
      throw failedPrecondition(`${LABEL[method]} codes are not set up for this account`);
    if (!(await codes.use(method, user.id, otp))) {
      await mfa.recordFailure(user.id, method);
      throw unauthenticated('invalid otp');
    }
    await mfa.factors.accept(factor.id);
    await mfa.clearFailures(user.id, method);
    return method;
  };

  return {
    send,
    verify,
    usable: (method: OtpMethod) => usable(channels[method]),

    /** `email_otp_mfa_setup` / `sms_otp_mfa_setup`: an unverified enrollment and a code to prove it. */
    async setup(ctx: RequestContext, method: OtpMethod, hint: OtpHint): Promise<{ message: string }> {
      const { user } = await mfa.enrollee(ctx, hint);
      if (!usable(channels[method])) throw failedPrecondition(`${LABEL[method]} codes are not available`);
      if (!channels[method].addressOf(user))
        throw invalidArgument(`the account has no ${method === 'email_otp' ? 'email address' : 'phone number'}`);
      const existing = await mfa.factors.find(user.id, method);
      if (existing?.verified) throw new ServiceError('already_exists', `${LABEL[method]} codes are already set up`);
      await mfa.factors.begin(user.id, method, null);
      await send(ctx, method, user);
      return { message: `A verification code was sent by ${LABEL[method]}` };
    },

    /** `resend_otp`: a new code on the channel of the pending sign-in or setup; the previous one dies. */
    async resend(ctx: RequestContext, hint: OtpHint): Promise<{ message: string }> {
      const pending = await mfa.pending(ctx);
      let user: UserRecord;
      if (pending) {
        user = await mfa.liveUser(pending.userId);
        mfa.checkHint(user, hint);
      } else {
        ({ user } = await mfa.enrollee(ctx, hint));
      }
      const method = await channelFor(user, hint);
      const factor = await mfa.factors.find(user.id, method);
      if (!factor || (pending?.state === 'verify' && !factor.verified))
        throw failedPrecondition(`${LABEL[method]} codes are not set up for this account`);
      await send(ctx, method, user);
      if (pending) await mfa.renew(ctx, pending);
      return { message: `A new verification code was sent by ${LABEL[method]}` };
    },
  };
}
