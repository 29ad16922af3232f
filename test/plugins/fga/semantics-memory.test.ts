import t from 'tap';
import { FgaService } from '../../../plugins/fga/service.js';
import { MemoryFgaStore } from '../../../plugins/fga/store/memory-store.js';
import { semanticsSuite } from './semantics-suite.js';

t.test('FGA semantics on the in-memory store', async (t) => {
  const svc = await FgaService.open(new MemoryFgaStore());
  t.teardown(() => svc.close());
  await semanticsSuite(t, svc);
});
