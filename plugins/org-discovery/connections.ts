/**
 * Where discovery gets an organization's SSO connections: the optional `org-sso` service, which the
 * enterprise SSO plugin provides. Until that plugin is part of the build every verified domain
 * answers `connection: null` (indistinguishable from no match).
 *
 * Precedence is decided here, not by the provider: an active SAML connection wins over an active
 * OIDC one.
 */
export interface DiscoveredConnection {
  /** `saml` or `oidc`. */
  type: string;
  /** Where the login starts, e.g. `/oauth/saml/<org_slug>/login`. */
  login_url: string;
}

/** What the SSO plugin's service offers discovery (its service may offer more). */
export interface OrgSsoConnectionSource {
  /** The organization's active connections, in any order. */
  activeConnections(orgId: string): Promise<DiscoveredConnection[]>;
}

// The `org-sso` plugin declares its service (a superset of this interface) into `Services`.

const RANK: Record<string, number> = { saml: 0, oidc: 1 };

export function preferredConnection(connections: readonly DiscoveredConnection[]): DiscoveredConnection | null {
  let best: DiscoveredConnection | null = null;
  for (const c of connections) {
    if (!best || (RANK[c.type] ?? 9) < (RANK[best.type] ?? 9)) best = c;
  }
  return best ? { type: best.type, login_url: best.login_url } : null;
}
