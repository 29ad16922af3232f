/**
 * The grant registry of the token endpoint. Grants register through the same API third-party
 * plugins use (token exchange, for example), like node-oidc-provider's `registerGrantType`.
 */
import type { RequestContext } from '../../../core/context.js';
import type { ClientCaller } from '../client-auth.js';
import type { Params } from '../params.js';

export interface GrantRequest {
  ctx: RequestContext;
  params: Params;
  caller: ClientCaller;
}

/** The JSON body of a successful token response (RFC 6749 §5.1). */
export type TokenResponse = Record<string, unknown>;

export type GrantHandler = (req: GrantRequest) => Promise<TokenResponse>;

export interface GrantOptions {
  /**
   * The grant may come without client authentication, the caller then being the built-in client
   * unauthenticated (RFC 7523 §3.1: the JWT bearer grant authenticates by its assertion).
   */
  clientOptional?: boolean;
}

export class GrantRegistry {
  private readonly grants = new Map<string, GrantHandler>();
  private readonly optionalClient = new Set<string>();

  register(type: string, handler: GrantHandler, options: GrantOptions = {}): void {
    if (this.grants.has(type)) throw new Error(`grant type ${type} is registered twice`);
    this.grants.set(type, handler);
    if (options.clientOptional) this.optionalClient.add(type);
  }

  clientOptional(type: string): boolean {
    return this.optionalClient.has(type);
  }

  get(type: string): GrantHandler | undefined {
    return this.grants.get(type);
  }

  types(): string[] {
    return [...this.grants.keys()];
  }
}
