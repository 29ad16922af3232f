/**
 * Reads kept while a SQLite file is unchanged (core/stamped-reads.ts), over the real change
 * stamp of a real file: answered again only while nothing was committed, never when a commit
 * landed during the read, bounded, and only what the caller asks to keep.
 */
import t from 'tap';
import { Config } from '../../core/config.js';
import { StampedReads } from '../../core/stamped-reads.js';
import { openStorage } from '../../storage/index.js';
import { sqliteTarget } from '../helpers/databases.js';

const target = await sqliteTarget();
t.teardown(() => target.dispose());
const storage = await openStorage(new Config({ ...target.flags }), []);
t.teardown(() => storage.close());
const stamp = storage.changeStamp;
if (!stamp) throw new Error('a SQLite file in WAL mode has a change stamp');
await storage.orm.em
  .getConnection()
  .execute('create table lk_stamped_probe (k varchar(20) primary key, v varchar(20))');
let n = 0;
const commit = () =>
  storage.statements.run('insert into lk_stamped_probe (k, v) values (?, ?)', [`k${n++}`, 'v'], 'run');

function counting(reads: StampedReads<string | null>) {
  let loads = 0;
  const read = (key: string, value: string | null = `value of ${key}`) =>
    reads.read(
      key,
      async () => (loads++, value),
      (v) => v !== null,
    );
  return { read, loads: () => loads };
}

t.test('kept while the file is unchanged; read again after any commit', async (t) => {
  const { read, loads } = counting(new StampedReads(stamp, 10));
  t.equal(await read('a'), 'value of a');
  t.equal(await read('a'), 'value of a');
  t.equal(loads(), 1, 'the second read was kept');
  await commit();
  await read('a');
  t.equal(loads(), 2, 'a commit makes it stale');
});

t.test('a commit during the read: the value is not answered again', async (t) => {
  const reads = new StampedReads<string | null>(stamp, 10);
  let loads = 0;
  const slow = () =>
    reads.read(
      'b',
      async () => {
        loads++;
        await commit();
        return 'read before the commit';
      },
      () => true,
    );
  await slow();
  await slow();
  t.equal(loads, 2, 'read again');
});

t.test('only values the caller keeps, and at most max of them', async (t) => {
  const { read, loads } = counting(new StampedReads(stamp, 2));
  await read('missing', null);
  await read('missing', null);
  t.equal(loads(), 2, 'a value not to keep is read every time');
  await read('x');
  await read('y');
  await read('z');
  t.equal(loads(), 5);
  await read('z');
  await read('y');
  t.equal(loads(), 5, 'the two newest are kept');
  await read('x');
  t.equal(loads(), 6, 'the oldest went first');
});
