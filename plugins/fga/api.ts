/**
 * What the `fga` service offers other plugins and the operations. When FGA is not available
 * the service still exists with `enabled: false`: every call
 * fails with `failed_precondition`, and `checkRelations` answers false (fail closed).
 */
import { ServiceError } from '../../core/errors.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { CompiledModel } from './engine/compiled-model.js';
import type { ListResult } from './engine/list-objects.js';
import type { CheckQuery } from './engine/queries.js';
import type { Tuple } from './engine/types.js';
import type { ListPermissionsResult, Permission } from './service.js';
import type { ReadFilter, StoredModel, TuplePage } from './store/types.js';

export interface ResetOptions {
  beforeReset?: () => Promise<void>;
  within?: (unit: UnitOfWork) => Promise<void>;
}

export interface FgaApi {
  readonly enabled: boolean;
  readonly currentModel: CompiledModel;
  getModel(): Promise<StoredModel>;
  installModel(dsl: string): Promise<StoredModel>;
  writeTuples(tuples: readonly Tuple[]): Promise<void>;
  deleteTuples(tuples: readonly Tuple[]): Promise<void>;
  readTuples(filter: ReadFilter, pageSize: number, continuationToken?: string): Promise<TuplePage>;
  /**
   * Deletes the store's models. `beforeReset` runs once the reset is allowed, before anything is
   * deleted (the audit record); `within` adds the reset's event rows to the reset's own commit
   * when the store is kept in the main database, and the answer is then true (FgaStore.reset).
   */
  reset(options?: ResetOptions): Promise<boolean>;
  check(queries: readonly CheckQuery[]): boolean[];
  /** True only when `subject` holds every listed relation (`required_relations`). */
  checkRelations(subject: string, relations: readonly Permission[]): Promise<boolean>;
  listObjects(type: string, relation: string, user: string, limit?: number): ListResult;
  listPermissions(
    user: string,
    filter: { relation?: string; objectType?: string },
    cap?: number,
  ): ListPermissionsResult;
  listUsers(object: string, relation: string, userType: string): string[];
  expand(object: string, relation: string): string;
  close(): Promise<void>;
}

declare module '../../core/services.js' {
  interface Services {
    fga: FgaApi;
  }
}

export const FGA_DISABLED_MESSAGE =
  'FGA is not enabled: set --fga-store (and --fga-store-url) or use a SQL main database';

const off = (): never => {
  throw new ServiceError('failed_precondition', FGA_DISABLED_MESSAGE);
};

export const disabledFga: FgaApi = {
  enabled: false,
  get currentModel(): CompiledModel {
    return off();
  },
  getModel: async () => off(),
  installModel: async () => off(),
  writeTuples: async () => off(),
  deleteTuples: async () => off(),
  readTuples: async () => off(),
  reset: async () => off(),
  check: () => off(),
  checkRelations: async (_subject, relations) => relations.length === 0,
  listObjects: () => off(),
  listPermissions: () => off(),
  listUsers: () => off(),
  expand: () => off(),
  close: async () => {},
};
