/**
 * The texted code of a phone verification: one live code per user (the sms service's code store,
 * sealed digest, single use, five wrong codes lock for 15 minutes), kept with the roles and scopes
 * of the sign-in it holds back, so the verified sign-in gets what was asked for.
 */
import type { RequestContext } from '../../core/context.js';
import type { SmsService } from '../sms/index.js';
import type { UserRecord } from '../users/index.js';

export const PURPOSE = 'phone-verification';
/** Long enough for a text to arrive and be typed in. */
export const CODE_TTL_MS = 10 * 60_000;

export interface HeldSignIn {
  roles: string[];
  scopes: string[];
}

export async function textCode(
  ctx: RequestContext,
  sms: SmsService,
  organization: string,
  user: UserRecord & { phoneNumber: string },
  held: HeldSignIn,
): Promise<void> {
  await sms.codes.checkNotLocked(PURPOSE, user.id);
  await sms.checkSendLimit(ctx, user.phoneNumber);
  // Taken before the code is issued: the text's stated end of use is never after the code's.
  const expiresAt = Date.now() + CODE_TTL_MS;
  const code = await sms.codes.issue(PURPOSE, user.id, CODE_TTL_MS, JSON.stringify(held));
  // The text is queued in the sms outbox (the gateway's pace never shows in this answer). The
  // code lives in the memory store, which shares no transaction with the outbox, so it is
  // written first and taken back when the text cannot be queued: no live code without its text.
  await sms
    .send(user.phoneNumber, `${code} is your ${organization} verification code.`, { expiresAt })
    .catch(async (err: unknown) => {
      await sms.codes.drop(PURPOSE, user.id);
      throw err;
    });
}

export function heldOf(data: string, user: UserRecord, defaultScopes: readonly string[]): HeldSignIn {
  try {
    const held = JSON.parse(data) as Partial<HeldSignIn>;
    if (Array.isArray(held.roles) && Array.isArray(held.scopes)) return { roles: held.roles, scopes: held.scopes };
  } catch {
    // a code issued without a held sign-in: the user's roles and the default scopes
  }
  return { roles: user.roles, scopes: [...defaultScopes] };
}
