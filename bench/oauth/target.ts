/** What a bench child server reports once it is ready (one JSON line on stdout). */
export interface BenchTarget {
  /** Base URL, 127.0.0.1 (no name resolution in the load generator). */
  base: string;
  clientId: string;
  clientSecret: string;
  /** An access token of a signed-in user with `openid email profile`, for /userinfo. */
  userAccessToken: string;
  /** The scope asked for in the client_credentials request. */
  scope: string;
  /** Token format notes for the table. */
  tokenFormat?: string;
}
