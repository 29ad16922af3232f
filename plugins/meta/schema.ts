/** The Meta type: every field exists in every build, false when unused. */
import type { TSchema } from '@sinclair/typebox';
import { Bool, OutputObject, Type } from '../../core/schema.js';

export const CONTRACT_META_FLAGS = [
  'is_google_login_enabled',
  'is_facebook_login_enabled',
  'is_github_login_enabled',
  'is_linkedin_login_enabled',
  'is_apple_login_enabled',
  'is_discord_login_enabled',
  'is_twitter_login_enabled',
  'is_microsoft_login_enabled',
  'is_twitch_login_enabled',
  'is_roblox_login_enabled',
  'is_email_verification_enabled',
  'is_basic_authentication_enabled',
  'is_magic_link_login_enabled',
  'is_sign_up_enabled',
  'is_strong_password_enabled',
  'is_multi_factor_auth_enabled',
  'is_mobile_basic_authentication_enabled',
  'is_phone_verification_enabled',
  'is_org_discovery_enabled',
  'is_totp_mfa_enabled',
  'is_email_otp_mfa_enabled',
  'is_sms_otp_mfa_enabled',
  'is_webauthn_enabled',
  'is_mfa_enforced',
] as const;

/** The contract fields plus whatever extra fields the build's plugins declare (custom providers). */
export function metaSchema(extra: Record<string, TSchema>) {
  const props: Record<string, TSchema> = { version: Type.String(), client_id: Type.String() };
  for (const f of CONTRACT_META_FLAGS) props[f] = Bool();
  for (const [k, v] of Object.entries(extra)) if (!(k in props)) props[k] = v;
  return OutputObject('Meta', props);
}
