// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core; no browser is ever
// downloaded) against the real app listening on loopback. Every `*.test` host name resolves to
// 127.0.0.1 inside the browser, so a page can be opened on a website's own domain:
// `${server.origin('site.test')}/post/hello`. Screenshots go to test-artifacts/screenshots/.
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type { TestContext } from './harness.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = path.resolve('test-artifacts', 'screenshots');

export const chromiumAvailable = fs.existsSync(CHROMIUM_PATH);

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--host-resolver-rules=MAP *.test 127.0.0.1'],
  });
}

export interface RunningServer {
  port: number;
  /** `http://{host}:{port}` for a website's domain (which must end in `.test`). */
  origin(host: string): string;
}

/** Makes the test context's app listen on a free loopback port (closed by ctx.close()). */
export async function listen(ctx: TestContext): Promise<RunningServer> {
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = ctx.app.server.address() as AddressInfo;
  return { port, origin: (host) => `http://${host}:${port}` };
}

/** Saves a full-page screenshot as a test artifact and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name.replace(/[^a-z0-9_-]+/gi, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
