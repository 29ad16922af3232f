import { readFileSync } from 'node:fs';
import t from 'tap';
import { README_FILE, renderReadme } from '../../../transports/cli/flags-markdown.js';

t.test('README lists every flag of the default distribution as the code declares it', async (t) => {
  const readme = readFileSync(README_FILE, 'utf8');
  t.equal(readme, renderReadme(readme), 'README flags drifted: run npm run generate');
  t.match(readme, /npm ci && npm start/);
  t.match(readme, /npm test/);
});
