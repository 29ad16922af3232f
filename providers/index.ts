/** The social providers of the default distribution, and the kit to write more (README "Writing a social provider"). */
import type { AnyPlugin } from '../core/plugin.js';
import { socialPlugin } from '../plugins/social/index.js';
import { appleProvider } from './apple.js';
import { discordProvider } from './discord.js';
import { facebookProvider } from './facebook.js';
import { genericOidcProvider } from './generic-oidc.js';
import { githubProvider } from './github.js';
import { googleProvider } from './google.js';
import { linkedinProvider } from './linkedin.js';
import { microsoftProvider } from './microsoft.js';
import { robloxProvider } from './roblox.js';
import { twitchProvider } from './twitch.js';
import { twitterProvider } from './twitter.js';

export * from './kit.js';
export { oidcProfile } from './oidc-profile.js';

export const socialProviders: AnyPlugin[] = [
  googleProvider,
  githubProvider,
  facebookProvider,
  linkedinProvider,
  appleProvider,
  discordProvider,
  twitterProvider,
  microsoftProvider,
  twitchProvider,
  robloxProvider,
  genericOidcProvider,
];

export {
  appleProvider,
  discordProvider,
  facebookProvider,
  genericOidcProvider,
  githubProvider,
  googleProvider,
  linkedinProvider,
  microsoftProvider,
  robloxProvider,
  twitchProvider,
  twitterProvider,
};

/** The social plugin and every provider: what the default distribution serves. */
export const socialPlugins: AnyPlugin[] = [socialPlugin, ...socialProviders];
