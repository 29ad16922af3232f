/**
 * The tokens `/verify_email` and `verify_email` answer: a verification request of the users
 * plugin (signup or a new address), or a token another plugin registers a redeemer for (the
 * magic-link plugin's sign-in links, which authorizer's clients also send to `/verify_email`).
 */
import type { RequestContext } from '../../core/context.js';
import type { AuthResult } from '../sign-in/index.js';

/** What redeeming a link token did: the sign-in's answer, and where the link wanted to go. */
export interface Redeemed {
  result: AuthResult;
  redirectUri: string | null;
  state: string | null;
}

/** Redeems a token it knows (consuming it), or answers null for one it does not. */
export type LinkRedeemer = (ctx: RequestContext, token: string) => Promise<Redeemed | null>;

export interface EmailLinksService {
  /** Adds a redeemer, tried after the verification requests, in registration order. */
  addRedeemer(redeemer: LinkRedeemer): void;
  /** The registered redeemers, in order. */
  readonly redeemers: readonly LinkRedeemer[];
}

declare module '../../core/services.js' {
  interface Services {
    'email-verification': EmailLinksService;
  }
}
