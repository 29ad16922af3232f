/**
 * One autocommit statement of this process with the SQLite change stamp told around it: when the
 * statement was the only commit since the last look, kept reads stay good (only `key` is
 * forgotten); otherwise, or when the statement fails, every kept read goes stale. Without a
 * change stamp (other databases) the statement just runs.
 */
import type { ChangeStamp, StatementAround } from '../core/storage.js';

export async function runOwnWrite<T>(
  changes: ChangeStamp | undefined,
  key: string | undefined,
  exec: (around: StatementAround | undefined) => Promise<T>,
): Promise<T> {
  let mark: object | undefined;
  let only = false;
  const around: StatementAround | undefined = changes && {
    before: () => {
      mark = changes.beforeOwnWrite();
    },
    after: (affectedRows) => {
      only = changes.afterOwnWrite(mark, affectedRows, key);
    },
  };
  let done = false;
  try {
    const result = await exec(around);
    done = true;
    return result;
  } finally {
    if (!(done && only)) changes?.noteWrite();
  }
}
