/**
 * The MFA plugins of the default distribution (plugins/default.ts): the gate and one plugin per
 * factor, so a custom build lists only the factors it wants (docs/mfa.md).
 */
import type { AnyPlugin } from '../../core/plugin.js';
import { mfaOtpPlugin } from '../mfa-otp/index.js';
import { totpPlugin } from '../totp/index.js';
import { webauthnPlugin } from '../webauthn/index.js';
import { mfaPlugin } from './index.js';

export const mfaPlugins: AnyPlugin[] = [mfaPlugin, totpPlugin, mfaOtpPlugin, webauthnPlugin];
