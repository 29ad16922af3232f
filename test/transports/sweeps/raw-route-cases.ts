/**
 * The malformed requests the raw-route sweep (raw-routes-sqlite.test.ts) sends to every raw route:
 * query strings that do not decode, repeat or nest their parameters, carry NUL, encoded
 * surrogates, overlong UTF-8 or a value of thousands of characters; bodies that are not what their
 * content type says, in content types no route reads, in encodings that are not UTF-8, nested
 * thousands deep or just under the body limit; and credentials that do not parse. Every
 * parameter name a raw route reads is set at once, so each route meets the bad value in the
 * parameter it looks at, whichever that is.
 */

/** Names the raw routes read from queries and bodies: OAuth, OpenID Connect, SAML, SCIM, MCP, the login page's forms. */
export const PARAMS = [
  'response_type',
  'response_mode',
  'client_id',
  'client_secret',
  'redirect_uri',
  'redirectURL',
  'scope',
  'state',
  'nonce',
  'code',
  'code_challenge',
  'code_challenge_method',
  'code_verifier',
  'grant_type',
  'refresh_token',
  'token',
  'token_type_hint',
  'subject_token',
  'subject_token_type',
  'actor_token',
  'resource',
  'audience',
  'prompt',
  'login_hint',
  'id_token_hint',
  'max_age',
  'post_logout_redirect_uri',
  'request',
  'request_uri',
  'email',
  'password',
  'confirm_password',
  'phone_number',
  'otp',
  'consent',
  'SAMLResponse',
  'SAMLRequest',
  'RelayState',
  'filter',
  'startIndex',
  'count',
  'attributes',
  'excludedAttributes',
  'sortBy',
  'error',
  'error_description',
  'iss',
  'client_name',
  'redirect_uris',
  'grant_types',
  'jsonrpc',
  'method',
  'params',
  'id',
  'schemas',
  'Operations',
  'userName',
  'displayName',
  'members',
];

/** Values set, already percent-encoded, in every parameter at once. */
const ENCODED_VALUES: readonly [string, string][] = [
  ['empty', ''],
  ['a space', '%20'],
  ['NUL', '%00'],
  ['an encoded lone surrogate', '%ED%A0%80'],
  ['overlong UTF-8', '%C0%AF'],
  ['a byte that is not UTF-8', '%FF'],
  ['a number out of range', '1e309'],
  ['a negative number', '-1'],
  ['JSON text', '%7B%22a%22%3A%5B1%5D%7D'],
  ['an absolute URL elsewhere', 'https%3A%2F%2Fevil.example%2Fx'],
  ['a javascript: URL', 'javascript%3Aalert(1)'],
  ['markup', '%3Cscript%3Ex%3C%2Fscript%3E'],
];

/** The same values for JSON bodies. */
const JSON_VALUES: readonly [string, unknown][] = [
  ['null', null],
  ['an empty string', ''],
  ['NUL', '\u0000'],
  ['a lone surrogate', '\ud800'],
  ['a number', 1e308],
  ['a boolean', true],
  ['an array', [1, 'a', null]],
  ['an object', { a: { b: 1 } }],
  ['a 70,000-character string', 'a'.repeat(70_000)],
];

export interface RawCase {
  what: string;
  /** Appended to the path: `?` and what follows, or ''. */
  query: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

const all = (value: string) => PARAMS.map((p) => `${p}=${value}`).join('&');
const allJson = (value: unknown) => JSON.stringify(Object.fromEntries(PARAMS.map((p) => [p, value])));
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * Cases for any method: the query string and the request's headers. `values`: each bad value in
 * every query parameter too (for routes that read their parameters from the query; a route that
 * reads a body gets the same values there, bodyCases).
 */
export function queryCases(values: boolean): RawCase[] {
  const cases: RawCase[] = values
    ? ENCODED_VALUES.map(([what, v]) => ({ what: `every parameter ${what}`, query: `?${all(v)}` }))
    : [];
  cases.push(
    { what: 'a query that does not decode', query: '?%ZZ=%ZZ&state=%' },
    { what: 'every parameter twice', query: `?${all('a')}&${all('b')}` },
    { what: 'every parameter as an array', query: `?${PARAMS.map((p) => `${p}[]=a&${p}[x]=b`).join('&')}` },
    { what: 'prototype keys', query: '?__proto__=x&constructor[prototype][polluted]=1&__proto__[polluted]=1' },
    { what: 'one 8,000-character value', query: `?state=${'a'.repeat(8_000)}&redirect_uri=${'b'.repeat(4_000)}` },
    { what: 'names without values', query: `?${PARAMS.join('&')}` },
    { what: 'no query at all', query: '' },
    { what: 'an empty bearer token', query: '', headers: { authorization: 'Bearer' } },
    { what: 'a 6,000-character bearer token', query: '', headers: { authorization: `Bearer ${'a'.repeat(6_000)}` } },
    { what: 'a bearer token that is not a JWT', query: '', headers: { authorization: 'Bearer a.b.c' } },
    { what: 'basic credentials that do not decode', query: '', headers: { authorization: 'Basic %%%' } },
    {
      what: 'basic credentials without a colon',
      query: '',
      headers: { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` },
    },
    {
      what: 'basic credentials with encoded bytes that are not UTF-8',
      query: '',
      headers: { authorization: `Basic ${Buffer.from('%FF%FE:%C0').toString('base64')}` },
    },
    { what: 'an unknown scheme', query: '', headers: { authorization: 'DPoP x' } },
    { what: 'cookies that do not decode', query: '', headers: { cookie: 'a=%ZZ; =; ;b; latchkey_session=%FF' } },
    { what: 'an Accept nothing is served in', query: '', headers: { accept: 'application/x-nothing' } },
  );
  return cases;
}

/** Cases for methods that carry a body. */
export function bodyCases(): RawCase[] {
  const cases: RawCase[] = [
    { what: 'malformed JSON', query: '', headers: JSON_TYPE, body: '{"client_id": "x", ' },
    { what: 'a JSON array', query: '', headers: JSON_TYPE, body: '[]' },
    { what: 'a JSON string', query: '', headers: JSON_TYPE, body: '"s"' },
    { what: 'JSON null', query: '', headers: JSON_TYPE, body: 'null' },
    {
      what: 'JSON with prototype keys',
      query: '',
      headers: JSON_TYPE,
      body: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}',
    },
    {
      what: 'JSON nested 10,000 deep',
      query: '',
      headers: JSON_TYPE,
      body: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    },
    {
      what: 'JSON with bytes that are not UTF-8',
      query: '',
      headers: JSON_TYPE,
      body: Buffer.concat([Buffer.from('{"client_id":"'), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}')]),
    },
    {
      what: 'JSON under a charset it is not in',
      query: '',
      headers: { 'content-type': 'application/json; charset=utf-16' },
      body: '{"a":1}',
    },
    { what: 'SCIM JSON that is malformed', query: '', headers: { 'content-type': 'application/scim+json' }, body: '{' },
    { what: 'a form that does not decode', query: '', headers: FORM, body: '%ZZ=%ZZ&state=%&code=%ED%A0%80' },
    { what: 'a form with every key twice', query: '', headers: FORM, body: `${all('a')}&${all('b')}` },
    {
      what: 'a form with bytes that are not UTF-8',
      query: '',
      headers: FORM,
      body: Buffer.concat([Buffer.from('grant_type=authorization_code&code='), Buffer.from([0xff, 0xc0])]),
    },
    { what: 'a form just under the body limit', query: '', headers: FORM, body: `state=${'a'.repeat(1_000_000)}` },
    { what: 'plain text', query: '', headers: { 'content-type': 'text/plain' }, body: 'grant_type=x' },
    {
      what: 'XML',
      query: '',
      headers: { 'content-type': 'application/xml' },
      body: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>',
    },
    {
      what: 'multipart without a boundary',
      query: '',
      headers: { 'content-type': 'multipart/form-data' },
      body: '--x--',
    },
    { what: 'a body without a content type', query: '', body: '{"a":1}' },
    { what: 'a content type that does not parse', query: '', headers: { 'content-type': ';;;/' }, body: 'a' },
    { what: 'an empty JSON body', query: '', headers: JSON_TYPE, body: '' },
    { what: 'an empty form', query: '', headers: FORM, body: '' },
  ];
  for (const [what, v] of ENCODED_VALUES)
    cases.push({ what: `a form with every field ${what}`, query: '', headers: FORM, body: all(v) });
  for (const [what, v] of JSON_VALUES)
    cases.push({ what: `JSON with every field ${what}`, query: '', headers: JSON_TYPE, body: allJson(v) });
  return cases;
}
