/**
 * The From header of outgoing mail: `--smtp-sender-email` with `--smtp-sender-name`, or with
 * `--organization-name` when no sender name is given.
 */
import t from 'tap';
import { rest, signupInput, startMailServer } from './helpers.js';

const fromOf = async (flags: Record<string, string>) => {
  const { server, sink, close } = await startMailServer({ 'enable-email-verification': true, ...flags });
  try {
    t.equal((await rest(server, 'signup', signupInput('sender@example.com'))).status, 200);
    return (await sink.next('sender@example.com')).from;
  } finally {
    await close();
  }
};

t.test('--smtp-sender-name names the sender', async (t) => {
  t.same(await fromOf({ 'smtp-sender-name': 'Acme Accounts', 'organization-name': 'Acme' }), {
    address: 'auth@example.com',
    name: 'Acme Accounts',
  });
});

t.test('without it, --organization-name does', async (t) => {
  t.same(await fromOf({ 'organization-name': 'Acme' }), { address: 'auth@example.com', name: 'Acme' });
});
