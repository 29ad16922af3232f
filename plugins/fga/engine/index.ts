/** The FGA engine: OpenFGA's model language and check semantics, independent of any store. */
export { ModelError } from './dsl-error.js';
export { parseDsl } from './dsl-parser.js';
export { compileModel } from './model-validator.js';
export { CompiledModel } from './compiled-model.js';
export { Resolver, MAX_DEPTH, DepthExceededError } from './resolver.js';
export { TupleIndex, OverlayReader } from './tuple-index.js';
export type { TupleReader } from './tuple-reader.js';
export { EMPTY_READER } from './tuple-reader.js';
export { parseObject, parseUser, tupleKey } from './tuple-format.js';
export * from './queries.js';
export type { ListResult } from './list-objects.js';
export type { ExpandNode } from './expand.js';
export type { AuthorizationModel, Tuple, DirectType, Rewrite, RelationDef, TypeDef } from './types.js';
