/**
 * Writing a social provider: GitLab (gitlab.com or a self-hosted GitLab) in one file, as a plugin
 * of its own beside the default distribution. `defineProvider` gives it the flags
 * (`--gitlab-client-id`, `--gitlab-client-secret`, `--gitlab-scopes` and one `--gitlab-<key>-url`
 * per endpoint below), the Meta field `is_gitlab_login_enabled`, the routes
 * /oauth_login/gitlab and /oauth_callback/gitlab, and a button on the hosted login page.
 * Run: npx tsx examples/custom-provider.ts --database-type sqlite --database-url ./data/gitlab.db \
 *        --url http://localhost:8080 --admin-secret s --client-id c --client-secret cs \
 *        --jwt-type HS256 --jwt-secret change-me \
 *        --gitlab-client-id <application id> --gitlab-client-secret <secret>
 * and register http://localhost:8080/oauth_callback/gitlab as the GitLab application's redirect URI.
 */
import { pathToFileURL } from 'node:url';
import type { AnyPlugin } from '../core/plugin.js';
import { defaultPlugins } from '../plugins/default.js';
import { asObject, defineProvider, optionalString, requireId, type SocialProfile } from '../providers/index.js';
import { runCli } from '../transports/cli/run.js';

export const gitlabProvider = defineProvider({
  // The path segment, the flag prefix and the Meta field's name.
  name: 'gitlab',
  label: 'GitLab',
  // Plain OAuth 2.0: the endpoints by key. `authorization` and `token` are the protocol's; `user`
  // is GitLab's API, read with the access token. A self-hosted GitLab sets the three URL flags.
  endpoints: {
    authorization: 'https://gitlab.com/oauth/authorize',
    token: 'https://gitlab.com/oauth/token',
    user: 'https://gitlab.com/api/v4/user',
  },
  scopes: ['read_user'],
  // GitLab supports RFC 7636 PKCE for every client.
  pkce: true,
  // The mapping from GitLab's user to the profile. The subject is GitLab's numeric id (usernames
  // can be renamed); the email counts as verified only when GitLab says it confirmed it.
  async profile({ api }) {
    const user = asObject(await api('user'), 'user');
    const email = optionalString(user, 'email');
    const profile: SocialProfile = {
      subject: requireId(user, 'id', 'user'),
      emailVerified: email !== undefined && optionalString(user, 'confirmed_at') !== undefined,
    };
    if (email) profile.email = email;
    const name = optionalString(user, 'name');
    if (name) profile.givenName = name;
    const username = optionalString(user, 'username');
    if (username) profile.nickname = profile.preferredUsername = username;
    const avatar = optionalString(user, 'avatar_url');
    if (avatar) profile.picture = avatar;
    return profile;
  },
});

/** The default distribution plus the new provider: what this file serves. */
export const customProviderBuild: AnyPlugin[] = [...defaultPlugins, gitlabProvider];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runCli(process.argv.slice(2), customProviderBuild);
  if (typeof result === 'number') process.exitCode = result;
}
