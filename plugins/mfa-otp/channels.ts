/**
 * Where email and SMS codes go: the `email` service (event `verify_otp`) and the `sms` service.
 * Both are optional collaborators: without the plugin (or unconfigured) the channel is off, and
 * a factor that cannot deliver is neither offered nor asked for (that would lock users out).
 */
import type { RequestContext } from '../../core/context.js';
import type { PluginSetupContext } from '../../core/plugin.js';
import type { UserRecord } from '../users/index.js';

export type OtpMethod = 'email_otp' | 'sms_otp';

export interface OtpChannel {
  method: OtpMethod;
  /** `--disable-email-otp` / `--disable-sms-otp` not set. */
  on: boolean;
  /** The user's address on this channel, or null. */
  addressOf(user: UserRecord): string | null;
  /** Whether a code can be delivered (the service is present). */
  ready(): boolean;
  /** Counts a send against the channel's own abuse limits (per address or number, and per IP). */
  limit(ctx: RequestContext, user: UserRecord): Promise<void>;
  /** Sends `code`, which stops working at `expiresAt` (Unix ms; the SMS outbox keeps it with the text). */
  deliver(user: UserRecord, code: string, expiresAt: number): Promise<void>;
}

const displayName = (user: UserRecord): string => user.givenName ?? user.nickname ?? user.email ?? '';

export function createChannels(ctx: PluginSetupContext): Record<OtpMethod, OtpChannel> {
  // Looked up when used, not at setup: a build may list the email and SMS plugins after this one.
  const mailService = () => ctx.optionalService('email');
  const smsService = () => ctx.optionalService('sms');
  const organization = ctx.config.string('organization-name', 'Latchkey');
  return {
    email_otp: {
      method: 'email_otp',
      on: !ctx.config.bool('disable-email-otp'),
      addressOf: (user) => user.email,
      ready: () => mailService()?.configured === true,
      async limit(rctx, user) {
        const mail = mailService();
        if (mail && user.email) await mail.checkSendLimit(rctx, user.email);
      },
      async deliver(user, code) {
        const mail = mailService();
        if (!mail || !user.email) throw new Error('email delivery is not available');
        await mail.send({ event: 'verify_otp', to: user.email, data: { otp: code, name: displayName(user) } });
      },
    },
    sms_otp: {
      method: 'sms_otp',
      on: !ctx.config.bool('disable-sms-otp'),
      addressOf: (user) => user.phoneNumber,
      ready: () => smsService()?.configured === true,
      async limit(rctx, user) {
        const sms = smsService();
        if (sms && user.phoneNumber) await sms.checkSendLimit(rctx, user.phoneNumber);
      },
      async deliver(user, code, expiresAt) {
        const sms = smsService();
        if (!sms || !user.phoneNumber) throw new Error('SMS delivery is not available');
        await sms.send(user.phoneNumber, `${code} is your ${organization} verification code.`, { expiresAt });
      },
    },
  };
}
