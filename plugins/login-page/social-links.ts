/**
 * The hosted page's social buttons: one link per provider the build enabled (the social service's
 * registry), each starting `/oauth_login/{provider}` with the page's own return path as the target.
 * The target is on the service's own origin, so the login comes back with the session cookie set
 * and no token in its URL, and the /authorize request it returns to answers as it was asked.
 */
import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import type {} from '../social/index.js';

export interface SocialLink {
  label: string;
  href: string;
}

export function socialLinks(ctx: RequestContext, returnTo: string): SocialLink[] {
  if (!ctx.kernel.hasService('social')) return [];
  const url = new URL(ctx.kernel.config.string('url', 'http://localhost'));
  const target = `${url.protocol}//${url.host}${returnTo}`;
  return ctx.kernel
    .service('social')
    .providers()
    .map((p) => ({
      label: p.label,
      href: `/oauth_login/${p.name}?${new URLSearchParams({ redirect_uri: target, state: randomBytes(12).toString('base64url') })}`,
    }));
}
