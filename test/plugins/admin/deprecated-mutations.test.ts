/**
 * The mutations v2 removed stay in the GraphQL schema, marked deprecated, and always fail with
 * their fixed error texts, with or
 * without input, with or without the admin secret.
 */
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());

const gql = async (query: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
};

const TEXTS: Record<string, string> = {
  _update_env: 'deprecated. please configure env via cli args',
  _admin_signup: 'deprecated. please configure admin secret via cli args',
  _generate_jwt_keys: 'deprecated. please configure jwt keys via cli args',
};

for (const [name, text] of Object.entries(TEXTS)) {
  t.test(name, async (t) => {
    for (const headers of [{}, { 'x-service-admin-secret': TEST_ADMIN_SECRET }] as Record<string, string>[]) {
      for (const call of [
        `mutation { ${name} { message } }`,
        `mutation { ${name}(params: { email: "a@b.c" }) { message } }`,
      ]) {
        const answer = await gql(call, headers);
        t.equal(answer.errors?.[0]?.message, text, call);
        t.equal(answer.errors?.[0]?.extensions?.code, 'FAILED_PRECONDITION');
      }
    }
    const schema = await gql('{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated } } }');
    const fields = (schema.data?.__type as { fields: { name: string; isDeprecated: boolean }[] }).fields;
    t.same(
      fields.find((f) => f.name === name),
      { name, isDeprecated: true },
      'in the schema, marked deprecated',
    );
  });
}
