/** Scopes this server understands and the claims each releases (OIDC Core §5.4). */
export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
export const SUPPORTED_SCOPES = ['openid', 'email', 'profile', 'phone', 'offline_access'];

export const SCOPE_CLAIMS: Record<string, string[]> = {
  profile: [
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'gender',
    'birthdate',
    'picture',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
};

export const SUPPORTED_CLAIMS = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'at_hash',
  'amr',
  'sid',
  ...Object.values(SCOPE_CLAIMS).flat(),
];
