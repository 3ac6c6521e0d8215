// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core; no browser is ever
// downloaded) against the real app listening on loopback. Every `*.test` host name resolves to
// 127.0.0.1 inside the browser, so a page can be opened on a website's own domain:
// `${server.origin('site.test')}/post/hello`. Screenshots go to test-artifacts/screenshots/.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { createTestContext } from './harness.js';
import type { TestContext } from './harness.js';
import { freePort } from './net.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = path.resolve('test-artifacts', 'screenshots');

export const chromiumAvailable = fs.existsSync(CHROMIUM_PATH);

/**
 * Makes sure the admin panel is built (dist/admin). scripts/test.mjs builds it from the sources once
 * before a run with browser tests; a test file run some other way builds it when it is missing.
 */
export function ensureAdminBuilt(): void {
  if (!fs.existsSync('dist/admin/manifest.json')) execFileSync('node', ['scripts/build-admin.mjs']);
}

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
/**
 * Serves the app on `port` (take one from `servedContext`, whose APP_URL names it, as a real
 * installation's does: Folio builds its absolute links from APP_URL's scheme and port).
 */
export async function listen(ctx: TestContext, port = 0): Promise<RunningServer> {
  await ctx.app.listen({ host: '127.0.0.1', port });
  const { port: bound } = ctx.app.server.address() as AddressInfo;
  return { port: bound, origin: (host) => `http://${host}:${bound}` };
}

/** A test context whose APP_URL names the port it will be served on, and that port. */
export async function servedContext(
  options: Parameters<typeof createTestContext>[0] = {},
): Promise<{ ctx: TestContext; port: number }> {
  const port = await freePort();
  const ctx = await createTestContext({
    ...options,
    config: { appUrl: `http://folio.test:${port}`, ...options.config },
  });
  return { ctx, port };
}

/** Saves a full-page screenshot as a test artifact and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name.replace(/[^a-z0-9_-]+/gi, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The page's serious and critical axe-core violations, as `rule (nodes)`. */
export async function serious(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate<{
    violations: Array<{ id: string; impact: string | null; nodes: unknown[] }>;
  }>('axe.run(document)');
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.nodes.length})`);
}

/** An admin screen's axe audit and screenshot at desktop and phone width (back to desktop after). */
export async function auditScreen(page: Page, name: string): Promise<void> {
  assert.deepEqual(await serious(page), [], `axe on ${name} at 1280 px`);
  await screenshot(page, `admin-${name}-desktop`);
  await page.setViewportSize({ width: 390, height: 844 });
  assert.deepEqual(await serious(page), [], `axe on ${name} at 390 px`);
  await screenshot(page, `admin-${name}-phone`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Signs `user` in on the site at `origin` through its login form, landing on `path` of the panel. */
export async function signInToAdmin(
  page: Page,
  origin: string,
  user: { email: string; password: string },
  path = '/admin',
): Promise<void> {
  await page.goto(`${origin}/user/login?redirect=${path}`);
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await Promise.all([page.waitForURL(`${origin}${path}`), page.click('main button[type=submit]')]);
}
