/**
 * Moves values between the JSON shapes the kernel speaks (the same as REST) and the plain objects
 * @grpc/proto-loader reads and writes, following the proto model field by field:
 * - JSON-text fields (`Map`, any JSON value) are stringified on the way out and parsed on the way in;
 * - proto3 has no presence for plain scalars, so an absent non-optional scalar is its zero value
 *   (what any proto3 peer means by leaving it out);
 * - fields the model does not know (proto-loader's virtual oneof names) are dropped.
 * The server and the test client both use it, so a value survives the round trip unchanged.
 */
import { ServiceError } from '../../core/errors.js';
import type { FieldType, Placement, ProtoField, ProtoMethod, ProtoModel } from './proto-model.js';
import { JsonTextError, parseJsonText } from '../../core/json-text.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function zero(type: FieldType): unknown {
  if (type.kind !== 'scalar') return undefined;
  return type.scalar === 'string' ? '' : type.scalar === 'bool' ? false : 0;
}

function encodeOne(model: ProtoModel, type: FieldType, value: unknown): unknown {
  if (type.kind === 'json') return JSON.stringify(value);
  if (type.kind === 'message') return toWire(model, type.message, value);
  return value;
}

/** A kernel value (JSON shape) as the object proto-loader serializes into message `name`. */
export function toWire(model: ProtoModel, name: string, value: unknown): Obj {
  const out: Obj = {};
  if (!isObj(value)) return out;
  for (const f of model.message(name).fields) {
    const v = value[f.name];
    if (v === undefined || v === null) continue;
    out[f.name] =
      f.repeated && Array.isArray(v) ? v.map((item) => encodeOne(model, f.type, item)) : encodeOne(model, f.type, v);
  }
  return out;
}

function decodeOne(model: ProtoModel, f: ProtoField, value: unknown, path: string): unknown {
  if (f.type.kind === 'message') return fromWire(model, f.type.message, value, `${path}.`);
  if (f.type.kind === 'json') {
    if (typeof value !== 'string') throw new ServiceError('invalid_argument', `invalid ${path}: must be JSON text`);
    try {
      return parseJsonText(value);
    } catch (err) {
      throw new ServiceError(
        'invalid_argument',
        `invalid ${path}: ${err instanceof JsonTextError ? err.message : 'must be JSON text'}`,
      );
    }
  }
  return value;
}

/**
 * An object proto-loader deserialized from message `name` as the kernel's JSON shape.
 * Bad JSON text is an `invalid_argument` naming the field.
 */
export function fromWire(model: ProtoModel, name: string, wire: unknown, prefix = ''): Obj {
  const out: Obj = {};
  const w = isObj(wire) ? wire : {};
  for (const f of model.message(name).fields) {
    const path = prefix + f.name;
    const v = w[f.name];
    if (f.clears !== undefined) {
      if (v !== true) continue;
      if (Array.isArray(w[f.clears]) && (w[f.clears] as unknown[]).length > 0) {
        throw new ServiceError(
          'invalid_argument',
          `invalid ${path}: ${f.name} and a non-empty ${prefix}${f.clears} contradict each other`,
        );
      }
      out[f.clears] = [];
      continue;
    }
    if (f.repeated) {
      const list = Array.isArray(v) ? v : [];
      if (list.length === 0 && f.optional) continue;
      out[f.name] = list.map((item, i) => decodeOne(model, f, item, `${path}.${i}`));
      continue;
    }
    if (v === undefined || v === null || (f.type.kind === 'json' && v === '')) {
      if (!f.optional && f.type.kind === 'scalar') out[f.name] = zero(f.type);
      continue;
    }
    out[f.name] = decodeOne(model, f, v, path);
  }
  return out;
}

function wrap(placement: Placement, value: unknown): unknown {
  return placement === 'self' ? value : { [placement]: value };
}

function unwrap(placement: Placement, value: Obj): unknown {
  return placement === 'self' ? value : value[placement];
}

/** The request object of a method from an operation input (undefined input: `Empty`). */
export function encodeRequest(model: ProtoModel, method: ProtoMethod, input: unknown): Obj {
  return method.input === null ? {} : toWire(model, method.request, wrap(method.input, input));
}

/** The operation input carried by a decoded request; undefined for `Empty`. */
export function decodeRequest(model: ProtoModel, method: ProtoMethod, wire: unknown): unknown {
  return method.input === null ? undefined : unwrap(method.input, fromWire(model, method.request, wire));
}

export function encodeResponse(model: ProtoModel, method: ProtoMethod, output: unknown): Obj {
  return toWire(model, method.response, wrap(method.output, output));
}

export function decodeResponse(model: ProtoModel, method: ProtoMethod, wire: unknown): unknown {
  return unwrap(method.output, fromWire(model, method.response, wire));
}
