/**
 * Mail templates: the branded defaults, the four template admin operations over REST and
 * GraphQL, escaping of every value, and templates that do not compile refused at write time.
 */
import t from 'tap';
import { Kernel } from '../../../core/kernel.js';
import { Config } from '../../../core/config.js';
import { defaultPlugins } from '../../../plugins/default.js';
import { admin, gql, rest, signupInput, startMailServer } from './helpers.js';

const { server, sink, close } = await startMailServer({
  'organization-name': 'Acme',
  'organization-logo': 'https://acme.example/logo.png',
});
t.teardown(close);

await rest(server, 'signup', signupInput('tom@example.com', { given_name: '<b>Tom</b>' }));

t.test('the default template is branded and escapes values', async (t) => {
  await rest(server, 'forgot_password', { email: 'tom@example.com' });
  const mail = await sink.next('tom@example.com');
  t.equal(mail.subject, 'Reset your Acme password');
  t.match(mail.html, /<img src="https:\/\/acme.example\/logo.png"/);
  t.match(mail.html, /Hello &lt;b&gt;Tom&lt;\/b&gt;/, 'the name is escaped in HTML');
  t.notMatch(mail.html, /<b>Tom/);
  t.match(mail.text, /Hello <b>Tom<\/b>/, 'the text part carries it as text');
  t.match(mail.text, /\/app\/reset-password\?token=/);
});

t.test('admin templates replace the default of their event', async (t) => {
  const added = await rest(
    server,
    'admin/add_email_template',
    {
      event_name: 'forgot_password',
      subject: '{{organization_name}}: new password for {{name}}',
      template: '<p>Hi {{name}},</p><p><a href="{{link}}">Choose a password</a></p>',
    },
    admin,
  );
  t.same(added.body, { message: 'Email template added successfully' });
  const dup = await rest(
    server,
    'admin/add_email_template',
    { event_name: 'forgot_password', subject: 'x', template: 'y' },
    admin,
  );
  t.equal(dup.status, 409, 'one template per event');

  await rest(server, 'forgot_password', { email: 'tom@example.com' });
  const mail = await sink.next('tom@example.com');
  t.equal(mail.subject, 'Acme: new password for <b>Tom</b>');
  t.match(mail.html, /Hi &lt;b&gt;Tom&lt;\/b&gt;,/);
  t.match(mail.text, /Choose a password \(http:\/\/localhost:\d+\/app\/reset-password\?token=/);

  const listed = await gql<{
    _email_templates: {
      pagination: { total: number };
      email_templates: {
        id: string;
        event_name: string;
        subject: string;
        template: string;
        design: string | null;
        created_at: number;
      }[];
    };
  }>(
    server,
    '{ _email_templates(params: { pagination: { limit: 10 } }) { pagination { total } email_templates { id event_name subject template design created_at updated_at } } }',
    {},
    admin,
  );
  t.equal(listed.data?._email_templates.pagination.total, 1);
  const template = listed.data!._email_templates.email_templates[0];
  t.equal(template.event_name, 'forgot_password');

  const updated = await gql(
    server,
    'mutation($p: UpdateEmailTemplateRequest!) { _update_email_template(params: $p) { message } }',
    { p: { id: template.id, subject: 'Reset at {{organization_name}}' } },
    admin,
  );
  t.same(updated.data, { _update_email_template: { message: 'Email template updated successfully' } });
  await rest(server, 'forgot_password', { email: 'tom@example.com' });
  t.equal((await sink.next('tom@example.com')).subject, 'Reset at Acme');

  const deleted = await gql(
    server,
    'mutation($p: DeleteEmailTemplateRequest!) { _delete_email_template(params: $p) { message } }',
    { p: { id: template.id } },
    admin,
  );
  t.same(deleted.data, { _delete_email_template: { message: 'Email template deleted successfully' } });
  await rest(server, 'forgot_password', { email: 'tom@example.com' });
  t.equal((await sink.next('tom@example.com')).subject, 'Reset your Acme password', 'the default again');
  t.equal((await rest(server, 'admin/delete_email_template', { id: template.id }, admin)).status, 404);
});

t.test('templates that do not compile are refused when written', async (t) => {
  for (const template of ['{{#if name}}open', '{{unknownHelper name}}', '{{> partial}}', '{{name']) {
    const r = await rest(
      server,
      'admin/add_email_template',
      { event_name: 'magic_link_login', subject: 's', template },
      admin,
    );
    t.equal(r.status, 400, template);
    t.match(r.body, { code: 'invalid_argument', message: /does not compile/ });
  }
  const badSubject = await rest(
    server,
    'admin/add_email_template',
    { event_name: 'magic_link_login', subject: '{{#each}}', template: 'ok' },
    admin,
  );
  t.equal(badSubject.status, 400);
  const event = await rest(
    server,
    'admin/add_email_template',
    { event_name: 'other', subject: 's', template: 't' },
    admin,
  );
  t.equal(event.status, 400);
  t.match(event.body.message, /expected one of basic_auth_signup/);
  const ok = await rest(
    server,
    'admin/add_email_template',
    { event_name: 'verify_otp', subject: 'Code', template: '<p>{{otp}}</p>' },
    admin,
  );
  t.equal(ok.status, 200);
  const listed = await rest<{ email_templates: { id: string }[] }>(server, 'admin/email_templates', {}, admin);
  t.equal(listed.body.email_templates.length, 1, 'refused templates left no row');
  const id = listed.body.email_templates[0].id;
  const broken = await rest(server, 'admin/update_email_template', { id, template: '{{#each}}' }, admin);
  t.equal(broken.status, 400);
  t.equal((await rest(server, 'admin/update_email_template', { id }, admin)).status, 400, 'nothing to update');
  t.equal((await rest(server, 'admin/update_email_template', { id: 'nope', subject: 'x' }, admin)).status, 404);
  t.equal(
    (await rest(server, 'admin/add_email_template', { event_name: 'verify_otp', subject: 's', template: 't' })).status,
    401,
  );
});

t.test('startup refuses mail features without SMTP', async (t) => {
  const base = { url: 'http://localhost:1', 'admin-secret': 'a', 'client-id': 'c', 'client-secret': 's' };
  for (const flag of ['enable-email-verification', 'enable-magic-link-login']) {
    const mailProblems = (c: Config) => Kernel.configProblems(defaultPlugins, c).filter((p) => /smtp/.test(p));
    const problems = mailProblems(new Config({ ...base, [flag]: true }));
    t.ok(problems.includes(`--${flag} needs outgoing mail: set --smtp-host (and the other --smtp-* flags)`), flag);
    t.same(mailProblems(new Config({ ...base, [flag]: true, 'smtp-host': 'mail.example' })), []);
  }
});
