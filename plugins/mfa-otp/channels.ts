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
  /** Counts a send against the channel's own abuse limits (the email service's per address and IP). */
  limit(ctx: RequestContext, user: UserRecord): Promise<void>;
  deliver(user: UserRecord, code: string): Promise<void>;
}

/** The SMS service's part this plugin uses (`send(to, body)`, `configured`). */
interface TextSender {
  readonly configured: boolean;
  send(to: string, body: string): Promise<void>;
}

/**
 * Looks the SMS service up by name: no plugin of this build declares it into `Services` yet, so
 * the shape is this plugin's own view of it (`send(to, body)`, `configured`).
 */
function lookup<T>(ctx: PluginSetupContext, name: string): T | undefined {
  return (ctx.optionalService as unknown as (n: string) => T | undefined)(name);
}

const displayName = (user: UserRecord): string => user.givenName ?? user.nickname ?? user.email ?? '';

export function createChannels(ctx: PluginSetupContext): Record<OtpMethod, OtpChannel> {
  const mail = ctx.optionalService('email');
  const sms = lookup<TextSender>(ctx, 'sms');
  const organization = ctx.config.string('organization-name', 'Latchkey');
  return {
    email_otp: {
      method: 'email_otp',
      on: !ctx.config.bool('disable-email-otp'),
      addressOf: (user) => user.email,
      ready: () => mail !== undefined && mail.configured,
      async limit(rctx, user) {
        if (mail && user.email) await mail.checkSendLimit(rctx, user.email);
      },
      async deliver(user, code) {
        if (!mail || !user.email) throw new Error('email delivery is not available');
        await mail.send({ event: 'verify_otp', to: user.email, data: { otp: code, name: displayName(user) } });
      },
    },
    sms_otp: {
      method: 'sms_otp',
      on: !ctx.config.bool('disable-sms-otp'),
      addressOf: (user) => user.phoneNumber,
      ready: () => sms !== undefined && sms.configured,
      async limit() {
        // The per-user window of service.ts bounds texts; the SMS service adds its own when it has one.
      },
      async deliver(user, code) {
        if (!sms || !user.phoneNumber) throw new Error('SMS delivery is not available');
        await sms.send(user.phoneNumber, `${code} is your ${organization} verification code.`);
      },
    },
  };
}
