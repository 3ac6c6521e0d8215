// Sitemaps checked against the sitemaps.org schemas (test/fixtures) with xmllint.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { XMLLINT_PATH, withXmllint } from './requirements.js';

const SCHEMAS = {
  urlset: path.resolve('test/fixtures/sitemap.xsd'),
  sitemapindex: path.resolve('test/fixtures/siteindex.xsd'),
} as const;

/**
 * xmllint's verdict on a sitemap or sitemap index, as a subtest of `t` (throws with xmllint's message
 * when invalid; skipped with the reason where xmllint is missing: see withXmllint).
 */
export async function validateSitemap(
  t: TestContext,
  xml: string,
  kind: keyof typeof SCHEMAS = 'urlset',
): Promise<void> {
  await withXmllint(t, `a valid ${kind} by the sitemaps.org schema`, () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sitemap-')), 'sitemap.xml');
    fs.writeFileSync(file, xml);
    try {
      execFileSync(XMLLINT_PATH, ['--noout', '--schema', SCHEMAS[kind], file], { stdio: 'pipe' });
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
}
