/**
 * HS* JWTs signed and verified with node:crypto (plugins/tokens/hmac-jws.ts): interoperable with
 * jose both ways, and every rule jose's jwtVerify applied is still applied.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { SignJWT, jwtVerify, decodeProtectedHeader } from 'jose';
import { hmacJws, type HmacAlg } from '../../../plugins/tokens/hmac-jws.js';

const secret = new TextEncoder().encode('a-test-secret-that-is-long-enough-0123456789');
const ISS = 'https://auth.example';
const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** A correctly MACed token with any header and payload: only the claim and header rules can refuse it. */
const signed = (header: unknown, payload: unknown) => {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', Buffer.from(secret)).update(input).digest('base64url')}`;
};

t.test('tokens verify with jose, and jose tokens verify here, for every HS algorithm', async (t) => {
  for (const alg of ['HS256', 'HS384', 'HS512'] as HmacAlg[]) {
    const jws = hmacJws(alg, secret, 'kid-1', ISS);
    const token = jws.sign({ sub: 'u1', iss: ISS, iat: now(), exp: now() + 60 });
    t.strictSame(decodeProtectedHeader(token), { alg, kid: 'kid-1', typ: 'JWT' });
    const { payload } = await jwtVerify(token, secret, { issuer: ISS, algorithms: [alg] });
    t.equal(payload.sub, 'u1', `${alg}: jose accepts ours`);
    const theirs = await new SignJWT({ sub: 'u2' })
      .setProtectedHeader({ alg })
      .setIssuer(ISS)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(secret);
    t.equal(jws.verify(theirs, now())?.sub, 'u2', `${alg}: we accept jose's`);
  }
});

t.test('anything altered, expired, early, foreign or malformed is refused', async (t) => {
  const jws = hmacJws('HS256', secret, 'kid-1', ISS);
  const good = jws.sign({ sub: 'u1', iss: ISS, exp: now() + 60 });
  const [h, p, s] = good.split('.');
  t.ok(jws.verify(good, now()));
  t.equal(jws.verify(`${h}.${b64({ sub: 'admin', iss: ISS, exp: now() + 60 })}.${s}`, now()), null, 'payload changed');
  t.equal(jws.verify(`${h}.${p}.${s.slice(0, -2)}AA`, now()), null, 'signature changed');
  t.equal(jws.verify(`${h}.${p}.`, now()), null, 'signature removed');
  // Characters a lenient decoder skips: the same MAC under another text.
  t.equal(jws.verify(`${good}!!`, now()), null, 'junk after the signature');
  t.equal(jws.verify(`${good}=`, now()), null, 'padding after the signature');
  t.equal(jws.verify(`${h}.${p}.${s.slice(0, 10)} ${s.slice(10)}`, now()), null, 'a space inside the signature');
  const last = s[s.length - 1];
  // 32 MAC bytes fill 43 characters with 2 bits to spare: the last character's low bits are 0.
  t.ok('AEIMQUYcgkosw048'.includes(last), 'the canonical last character has its unused bits clear');
  const sibling = String.fromCharCode(last.charCodeAt(0) + 1);
  t.equal(
    jws.verify(`${h}.${p}.${s.slice(0, -1)}${sibling}`, now()),
    null,
    'unused low bits of the last character set',
  );
  t.equal(jws.verify(`${b64({ alg: 'none' })}.${p}.`, now()), null, 'alg none');
  t.equal(jws.verify(`${h}.${p}`, now()), null, 'two parts');
  t.equal(jws.verify(`${good}.extra`, now()), null, 'four parts');
  t.equal(jws.verify('', now()), null, 'empty');
  t.equal(
    hmacJws('HS256', new TextEncoder().encode('another-secret-another-secret-0123'), 'kid-1', ISS).verify(good, now()),
    null,
    'other key',
  );
  t.equal(
    jws.verify(signed({ alg: 'HS512', typ: 'JWT' }, { iss: ISS, exp: now() + 60 }), now()),
    null,
    'header names another alg',
  );
  t.equal(
    jws.verify(signed({ alg: 'HS256', crit: ['exp'] }, { iss: ISS, exp: now() + 60 }), now()),
    null,
    'crit present',
  );
  t.equal(jws.verify(signed({ alg: 'HS256', b64: false }, { iss: ISS, exp: now() + 60 }), now()), null, 'b64 present');
  t.equal(jws.verify(signed([1], { iss: ISS, exp: now() + 60 }), now()), null, 'header not an object');
  t.equal(jws.verify(signed({ alg: 'HS256' }, [1, 2]), now()), null, 'payload not an object');
  t.equal(
    jws.verify(signed({ alg: 'HS256' }, { iss: 'https://evil.example', exp: now() + 60 }), now()),
    null,
    'other issuer',
  );
  t.equal(jws.verify(signed({ alg: 'HS256' }, { exp: now() + 60 }), now()), null, 'no issuer');
  t.equal(jws.verify(signed({ alg: 'HS256' }, { iss: ISS, exp: now() }), now()), null, 'expires now');
  t.equal(jws.verify(signed({ alg: 'HS256' }, { iss: ISS, exp: String(now() + 60) }), now()), null, 'exp not a number');
  t.equal(
    jws.verify(signed({ alg: 'HS256' }, { iss: ISS, nbf: now() + 30, exp: now() + 60 }), now()),
    null,
    'not yet valid',
  );
  t.equal(
    jws.verify(signed({ alg: 'HS256' }, { iss: ISS, iat: 'yesterday', exp: now() + 60 }), now()),
    null,
    'iat not a number',
  );
  t.ok(jws.verify(signed({ alg: 'HS256' }, { iss: ISS, nbf: now(), exp: now() + 60 }), now()), 'nbf now is fine');
  t.equal(
    jws.verify(signed({ alg: 'HS256' }, { iss: ISS }), now()),
    null,
    'no exp: refused (every token this server signs expires)',
  );
  t.ok(
    hmacJws('HS256', secret, 'kid-1', '').verify(signed({ alg: 'HS256' }, { exp: now() + 60 }), now()),
    'no issuer configured: iss not required',
  );
});
