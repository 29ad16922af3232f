/**
 * A real browser (Debian Chromium through playwright-core) with every request to another origin
 * refused: the playground (`--enable-playground`) loads, runs a `meta` query on /graphql and
 * shows the answer; the API reference renders the OpenAPI document with the `/v1/login`
 * operation. Neither page may break its content-security policy (a violation is reported in the
 * console and fails the test).
 */
import t from 'tap';
import { type Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../../../helpers/chromium.js';
import { startTestServer, TEST_CLIENT_ID } from '../../../helpers/server.js';

t.test(
  'the playground and the API reference work in Chromium, offline and under their policy',
  { skip: chromiumMissing },
  async (t) => {
    const server = await startTestServer({ flags: { 'enable-playground': true } });
    t.teardown(() => server.close());
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const origin = new URL(server.url).origin;

    /** A page that may reach this server only, and that records policy violations and errors. */
    async function openPage(): Promise<{ page: Page; problems: string[]; elsewhere: string[] }> {
      const page = await browser.newPage();
      const problems: string[] = [];
      const elsewhere: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
        elsewhere.push(url);
        return route.abort();
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (err) => problems.push(err.message));
      return { page, problems, elsewhere };
    }

    await t.test('the playground runs a meta query and shows the answer', async (t) => {
      const { page, problems, elsewhere } = await openPage();
      await page.goto(`${server.url}/graphiql`);
      const editor = page.locator('.graphiql-query-editor .CodeMirror').first();
      await editor.waitFor({ timeout: 30_000 });
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.keyboard.insertText('{ meta { client_id version } }');
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response');
      await response.getByText(TEST_CLIENT_ID).waitFor({ timeout: 30_000 });
      const shown = await response.innerText();
      t.match(shown, `"client_id": "${TEST_CLIENT_ID}"`, 'the answer of meta, from /graphql');
      t.strictSame(elsewhere, [], 'nothing was asked of another origin');
      t.strictSame(problems, [], 'no policy violation or script error');
      await page.close();
    });

    await t.test('the API reference shows the /v1/login operation', async (t) => {
      const { page, problems, elsewhere } = await openPage();
      await page.goto(`${server.url}/reference`);
      const login = page.locator('.opblock-summary-path', { hasText: /^\/v1\/login$/ }).first();
      await login.waitFor({ timeout: 30_000 });
      t.equal((await login.innerText()).trim(), '/v1/login');
      t.ok(
        await page.locator('.opblock-post .opblock-summary-path', { hasText: /^\/v1\/login$/ }).count(),
        'as a POST',
      );
      t.strictSame(elsewhere, [], 'nothing was asked of another origin');
      t.strictSame(problems, [], 'no policy violation or script error');
      await page.close();
    });
  },
);
