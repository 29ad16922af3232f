/** The mail-based account flows, in boot order: the channel, then the flows that mail users. */
import type { AnyPlugin } from '../../core/plugin.js';
import { emailVerificationPlugin } from '../email-verification/index.js';
import { invitationsPlugin } from '../invitations/index.js';
import { magicLinkPlugin } from '../magic-link/index.js';
import { passwordResetPlugin } from '../password-reset/index.js';
import { emailPlugin } from './index.js';

export const emailPlugins: AnyPlugin[] = [
  emailPlugin,
  emailVerificationPlugin,
  magicLinkPlugin,
  passwordResetPlugin,
  invitationsPlugin,
];
