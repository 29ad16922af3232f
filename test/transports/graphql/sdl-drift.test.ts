/**
 * The committed SDL (transports/graphql/schema.graphql) must be what the default distribution's
 * operation table generates today, and it must carry the wire contract's names that
 * existing clients (authorizer-js) send.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { buildSchema, type GraphQLField, type GraphQLSchema } from 'graphql';
import t from 'tap';
import { CONTRACT_META_FLAGS } from '../../../plugins/meta/schema.js';
import { renderSchemaFile, SCHEMA_FILE } from '../../../transports/graphql/default-schema.js';

const committed = readFileSync(SCHEMA_FILE, 'utf8');
const generated = renderSchemaFile();

t.test('the committed schema.graphql matches the operation table', async (t) => {
  if (committed !== generated) {
    const a = committed.split('\n');
    const b = generated.split('\n');
    let line = 0;
    while (line < Math.max(a.length, b.length) && a[line] === b[line]) line++;
    t.fail(
      `transports/graphql/schema.graphql is out of date (first difference at line ${line + 1}: ` +
        `committed ${JSON.stringify(a[line] ?? '<end>')}, generated ${JSON.stringify(b[line] ?? '<end>')}); ` +
        'run npm run generate',
    );
  } else {
    t.pass('up to date');
  }
});

t.test('npm run generate -- --check agrees', async (t) => {
  const run = promisify(execFile);
  const expectDrift = committed !== generated;
  try {
    await run(process.execPath, ['--import', 'tsx', 'transports/generate.ts', '--check'], {
      cwd: new URL('../../../', import.meta.url),
    });
    t.notOk(expectDrift, '--check exits 0 only when the file is up to date');
  } catch (err) {
    t.ok(expectDrift, `--check exits 1 only on drift: ${(err as Error).message}`);
    t.match((err as { stderr?: string }).stderr, /run npm run generate/);
  }
});

const schema: GraphQLSchema = buildSchema(generated);

function root(kind: 'Query' | 'Mutation', name: string): GraphQLField<unknown, unknown> {
  const type = kind === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = type?.getFields()[name];
  if (!field) throw new Error(`${kind}.${name} is missing`);
  return field;
}

const signature = (f: GraphQLField<unknown, unknown>): string =>
  `${f.name}${f.args.length ? `(${f.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ')})` : ''}: ${String(f.type)}`;

function fieldsOf(typeName: string): Record<string, string> {
  const type = schema.getType(typeName) as { getFields?: () => Record<string, { type: unknown }> } | undefined;
  if (!type?.getFields) throw new Error(`type ${typeName} is missing`);
  return Object.fromEntries(Object.entries(type.getFields()).map(([k, v]) => [k, String(v.type)]));
}

t.test('meta and the admin session operations carry the wire contract names', async (t) => {
  t.equal(signature(root('Query', 'meta')), 'meta: Meta!');
  const meta: Record<string, string> = { version: 'String!', client_id: 'String!' };
  for (const f of CONTRACT_META_FLAGS) meta[f] = 'Boolean!';
  t.same(fieldsOf('Meta'), meta);

  t.equal(signature(root('Mutation', '_admin_login')), '_admin_login(params: AdminLoginRequest!): Response!');
  t.same(fieldsOf('AdminLoginRequest'), { admin_secret: 'String!' });
  t.equal(signature(root('Mutation', '_admin_logout')), '_admin_logout: Response!');
  t.equal(signature(root('Query', '_admin_session')), '_admin_session: Response!');
  t.equal(signature(root('Query', '_admin_meta')), '_admin_meta: AdminMeta!');
  t.same(fieldsOf('AdminMeta'), {
    roles: '[String!]!',
    default_roles: '[String!]!',
    protected_roles: '[String!]!',
    is_multi_factor_auth_service_enabled: 'Boolean!',
  });
  t.same(fieldsOf('Response'), { message: 'String!' });
});

t.test('the deprecated mutations stay in the schema', async (t) => {
  for (const name of ['_update_env', '_admin_signup', '_generate_jwt_keys']) {
    const field = root('Mutation', name);
    t.equal(String(field.type), 'Response!', name);
    t.ok(field.deprecationReason, `${name} is marked deprecated`);
  }
});

t.test('the contract scalars are declared', async (t) => {
  for (const name of ['Int64', 'Map', 'Any']) t.ok(schema.getType(name), name);
});
