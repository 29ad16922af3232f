/** The part of node-oidc-provider's API the tests use (the package ships no type declarations). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export interface KoaContextWithOIDC {
    oidc: {
      client?: { clientId: string };
      session?: { accountId?: string };
      provider: Provider;
    };
  }

  export type Configuration = Record<string, unknown> & {
    findAccount?: (
      ctx: KoaContextWithOIDC,
      id: string,
    ) => Promise<{ accountId: string; claims: () => Promise<Record<string, unknown>> }>;
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    Grant: new (init: { clientId: string; accountId: string }) => Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
