/**
 * The one script of the hosted pages: WebAuthn needs `navigator.credentials` in the browser, so
 * the passkey buttons run this (served same-origin as /app/passkey.js; CSP `script-src 'self'`).
 * It turns the server's options JSON into the browser's types with PublicKeyCredential's own
 * JSON helpers (WebAuthn Level 3 §5.1.9-5.1.10), posts the result back, and follows `location`.
 */
export const PASSKEY_SCRIPT = `(() => {
  const post = async (path, body) => {
    const res = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const data = await res.json();
    if (!res.ok) throw new Error(data.message || 'the request failed');
    return data;
  };
  const show = (message) => {
    let p = document.getElementById('passkey-error');
    if (!p) {
      p = document.createElement('p');
      p.id = 'passkey-error';
      p.className = 'error';
      p.setAttribute('role', 'alert');
      document.querySelector('main').appendChild(p);
    }
    p.textContent = message;
  };
  const returnTo = (el) => el.dataset.returnTo || '/app';
  const register = document.getElementById('passkey-register');
  if (register) {
    register.addEventListener('click', async () => {
      try {
        const { options } = await post('/app/passkey/registration-options', {});
        const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(JSON.parse(options));
        const credential = await navigator.credentials.create({ publicKey });
        const done = await post('/app/passkey/registration', {
          credential: JSON.stringify(credential.toJSON()),
          return_to: returnTo(register),
        });
        window.location.assign(done.location);
      } catch (err) {
        show(err.message);
      }
    });
  }
  for (const id of ['passkey-login', 'passkey-verify']) {
    const button = document.getElementById(id);
    if (!button) continue;
    button.addEventListener('click', async () => {
      try {
        const field = id === 'passkey-login' ? document.getElementById('email') : null;
        const email = field && field.value ? field.value : undefined;
        const { options } = await post('/app/passkey/login-options', email ? { email } : {});
        const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(JSON.parse(options));
        const credential = await navigator.credentials.get({ publicKey });
        const done = await post('/app/passkey/login', {
          credential: JSON.stringify(credential.toJSON()),
          return_to: returnTo(button),
        });
        window.location.assign(done.location);
      } catch (err) {
        show(err.message);
      }
    });
  }
})();
`;
