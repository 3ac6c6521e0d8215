// Sitemaps checked against the sitemaps.org schemas (test/fixtures) with xmllint.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCHEMAS = {
  urlset: path.resolve('test/fixtures/sitemap.xsd'),
  sitemapindex: path.resolve('test/fixtures/siteindex.xsd'),
} as const;

/** xmllint's verdict on a sitemap or sitemap index (throws with its message when invalid). */
export function validateSitemap(xml: string, kind: keyof typeof SCHEMAS = 'urlset'): void {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sitemap-')), 'sitemap.xml');
  fs.writeFileSync(file, xml);
  try {
    execFileSync('/usr/bin/xmllint', ['--noout', '--schema', SCHEMAS[kind], file], { stdio: 'pipe' });
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}
