/** For property tests over random models: the compiled model, or null when the random text is not a valid model. */
import { CompiledModel, ModelError } from '../../../../plugins/fga/engine/index.js';

export function compiledOrNull(dsl: string): CompiledModel | null {
  try {
    return CompiledModel.fromDsl('m', dsl);
  } catch (err) {
    if (err instanceof ModelError) return null; // e.g. a relation with no entry point: nothing to compare
    throw err;
  }
}
