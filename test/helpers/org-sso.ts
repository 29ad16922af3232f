/**
 * The scene of the organization single sign-on tests: Latchkey with home realm discovery and an
 * encryption key for sealed secrets, the organization `acme` (owner of the verified domain
 * acme.example) and `globex`; for OIDC, acme's upstream issuer with Latchkey registered as its
 * client `acme-latchkey`.
 */
import type { Test } from 'tap';
import type { FlagValue } from '../../core/config.js';
import { Browser, landing } from '../providers/helpers/browser.js';
import { startOidcIssuer } from '../providers/helpers/oidc-issuer.js';
import { APP_CALLBACK, startLatchkey, type Latchkey } from '../providers/helpers/latchkey.js';

export const ACME_CLIENT = { id: 'acme-latchkey', secret: 'acme-upstream-secret-0123' };

/** Acme's upstream OpenID provider on 127.0.0.1, redirecting back to Latchkey at `base`. */
export const startAcmeIssuer = (base: string) =>
  startOidcIssuer({
    clients: [
      {
        client_id: ACME_CLIENT.id,
        client_secret: ACME_CLIENT.secret,
        redirect_uris: [`${base}/oauth/oidc/acme/callback`],
      },
    ],
  });

export interface OrgSsoScene {
  latchkey: Latchkey;
  admin: Latchkey['admin'];
  acme: string;
  globex: string;
}

/** Latchkey on `base` (`port`), with `flags` added, and the two organizations. */
export async function startOrgSsoScene(
  base: string,
  port: number,
  flags: Record<string, FlagValue | undefined>,
): Promise<OrgSsoScene> {
  const latchkey = await startLatchkey({ url: base, 'http-port': port, 'enable-org-discovery': true, ...flags });
  const { admin } = latchkey;
  const orgOf = async (name: string) => ((await admin('create_organization', { name })) as { id: string }).id;
  const acme = await orgOf('acme');
  const globex = await orgOf('globex');
  await admin('add_verified_org_domain', { org_id: acme, domain: 'acme.example' });
  return { latchkey, admin, acme, globex };
}

/**
 * An inactive connection of acme's is not offered by discovery and refuses logins with
 * `invalid_request`; deleting acme deletes the connection.
 */
export async function expectInactiveThenDeleted(
  t: Test,
  scene: Pick<OrgSsoScene, 'latchkey' | 'admin' | 'acme'>,
  kind: 'oidc' | 'saml',
  connectionId: string,
  loginUrl: string,
): Promise<void> {
  const { admin } = scene;
  await admin(`update_org_${kind}_connection`, { id: connectionId, is_active: false });
  const res = await fetch(`${scene.latchkey.url}/api/v1/org-discovery?email=kim@acme.example`);
  t.same(await res.json(), { connection: null });
  const refused = landing(await new Browser().follow(loginUrl, APP_CALLBACK));
  t.equal(
    refused.searchParams.get('error') ?? new URLSearchParams(refused.hash.slice(1)).get('error'),
    'invalid_request',
  );
  await admin('delete_organization', { id: scene.acme });
  await t.rejects(admin(`org_${kind}_connection`, { id: connectionId }), /404/);
}
