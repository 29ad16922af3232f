// The part of oidc-provider's API the oauth bench uses (the package ships no types).
declare module 'oidc-provider' {
  import type { Server } from 'node:http';
  interface ClientInstance {
    clientId: string;
  }
  interface GrantInstance {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface AccessTokenInstance {
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string): Server;
    Client: { find(id: string): Promise<ClientInstance | undefined> };
    Grant: new (init: { accountId: string; clientId: string }) => GrantInstance;
    AccessToken: new (init: {
      accountId: string;
      client: ClientInstance | undefined;
      grantId: string;
      scope: string;
      gty: string;
    }) => AccessTokenInstance;
  }
}
