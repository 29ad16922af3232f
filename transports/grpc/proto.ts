/**
 * Renders the gRPC projection of an operation table as proto3 text (a public service plus
 * `AuthorizerAdminService` for the admin operations). The output is deterministic:
 * messages and methods are sorted by name, fields keep their schema order and numbers.
 */
import type { CompiledOperation } from '../../core/operations.js';
import {
  ADMIN_SERVICE,
  PROTO_PACKAGE,
  PUBLIC_SERVICE,
  buildProtoModel,
  type ProtoField,
  type ProtoMessage,
  type ProtoMethod,
  type ProtoModel,
} from './proto-model.js';

const HEADER = [
  '// Latchkey gRPC API, generated from the operation table by transports/grpc/proto.ts.',
  '// Do not edit: regenerate with `npm run generate`.',
  '//',
  '// Conventions:',
  '// - Field names are the snake_case names of the REST and GraphQL contract.',
  '// - Integers are int64; Node clients should load this file with proto-loader `longs: Number`',
  '//   so they are JSON numbers, as on REST.',
  '// - Free-form objects (GraphQL scalar `Map`) and values of any JSON type are `string` fields',
  '//   holding JSON text (for example "{\\"plan\\":\\"pro\\"}"); send JSON text, parse what you receive.',
  '// - Optional schema properties are proto3 `optional`; lists are `repeated` (an empty list and an',
  '//   absent optional list are the same on this transport; where an empty list means "no items",',
  "//   as an update's `roles`, a `clear_<list>` flag says so).",
  '// - An operation without input takes `Empty`; a list result is wrapped in `<Method>Response`',
  '//   whose `items` holds the list.',
  '// - Errors are gRPC statuses with the message as details (UNAUTHENTICATED, PERMISSION_DENIED,',
  '//   INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND, ALREADY_EXISTS, ...). Cookies an operation',
  '//   sets arrive as `set-cookie` response metadata; send them back in `cookie` request metadata.',
];

function comment(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => `${indent}// ${line.trimEnd()}`.trimEnd());
}

function typeName(f: ProtoField): string {
  switch (f.type.kind) {
    case 'scalar':
      return f.type.scalar;
    case 'message':
      return f.type.message;
    case 'json':
      return 'string';
  }
}

function renderField(f: ProtoField): string[] {
  const label = f.repeated ? 'repeated ' : f.optional ? 'optional ' : '';
  const note = f.type.kind === 'json' ? ` // JSON text (${f.type.what})` : '';
  return [...comment(f.description, '  '), `  ${label}${typeName(f)} ${f.name} = ${f.number};${note}`];
}

function renderMessage(m: ProtoMessage): string[] {
  const body = m.fields.flatMap(renderField);
  return [
    ...comment(m.description, ''),
    body.length ? `message ${m.name} {` : `message ${m.name} {}`,
    ...(body.length ? [...body, '}'] : []),
  ];
}

function renderMethod(m: ProtoMethod): string[] {
  const rpc = `  rpc ${m.name}(${m.request}) returns (${m.response})`;
  return [
    ...comment(`${m.description} (operation ${m.operation})`, '  '),
    m.deprecated ? `${rpc} {\n    option deprecated = true;\n  }` : `${rpc};`,
  ];
}

function renderService(name: string, doc: string, methods: ProtoMethod[]): string[] {
  return [...comment(doc, ''), `service ${name} {`, ...methods.flatMap(renderMethod), '}'];
}

export function renderProto(model: ProtoModel): string {
  const lines = [
    ...HEADER,
    '',
    'syntax = "proto3";',
    '',
    `package ${PROTO_PACKAGE};`,
    '',
    ...renderService(
      PUBLIC_SERVICE,
      'Public operations: the GraphQL root fields without a leading underscore.',
      model.publicMethods,
    ),
    '',
    ...renderService(
      ADMIN_SERVICE,
      'Admin operations (GraphQL root fields starting with `_`): send the `x-service-admin-secret`\nmetadata or the `service-admin` cookie in `cookie` metadata.',
      model.adminMethods,
    ),
  ];
  for (const m of model.messages) lines.push('', ...renderMessage(m));
  return `${lines.join('\n')}\n`;
}

/** The proto3 text of an operation table's gRPC surface (package `latchkey.v1`). */
export function buildProto(ops: CompiledOperation[]): string {
  return renderProto(buildProtoModel(ops));
}
