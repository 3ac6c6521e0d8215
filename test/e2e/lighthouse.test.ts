// Lighthouse 12 (npm), mobile preset (its default config), with Debian's Chromium against the real
// server (issue 22): the home, a post, a category page, a tag page and a page, and the home and a post
// in zh_TW (issue 41), score 100 in accessibility, best practices and SEO, and in performance but for
// timing alone on a loaded machine (reported, not asserted: the timing metrics are wall-clock); search
// results stay out of search engines (noindex). One Chromium, pages in sequence.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_PATH, chromiumAvailable, listen, servedContext } from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';
import { seedThemeSite } from '../support/theme-site.js';
import type { ThemeSite } from '../support/theme-site.js';

// localhost: the one plain-HTTP origin browsers (and Lighthouse's HTTPS audits) treat as secure.
const HOST = 'localhost';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

interface Audit {
  id: string;
  title: string;
  score: number | null;
  scoreDisplayMode: string;
  displayValue?: string;
}

/** A headless Chromium for Lighthouse to drive (Debian's; never a downloaded one). */
function launchChrome(): Promise<chromeLauncher.LaunchedChrome> {
  return chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
    logLevel: 'silent',
  });
}

describe(
  'Lighthouse on the default theme',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let server: RunningServer;
    let site: ThemeSite;
    let chrome: chromeLauncher.LaunchedChrome;

    before(async () => {
      let port: number;
      // Production settings: the page cache and compiled, remembered templates, as users run it.
      ({ ctx, port } = await servedContext());
      site = await seedThemeSite(ctx, HOST);
      // Issue 41: a page in Traditional Chinese scores as the English ones do.
      await ctx.services.settings.setMany({ default_locale: 'en', supported_locales: 'en,zh_TW' });
      server = await listen(ctx, port);
      chrome = await launchChrome();
    });
    after(async () => {
      chrome?.kill();
      await ctx.close();
    });

    const options = { output: 'json' as const, logLevel: 'error' as const, onlyCategories: [...CATEGORIES] };

    /** Lighthouse's report of a page: category scores (0–100) and the audits that lost points. */
    async function audit(path: string) {
      const url = `${server.origin(HOST)}${path}`;
      // A first visit warms the page and data caches, as any page a reader opens has been opened before.
      await fetch(url).catch(() => undefined);
      // A trace Lighthouse failed to record (NO_NAVSTART and the like) asks to "run Lighthouse again".
      // On a busy machine it can fail twice in one browser: up to four runs, each retry in a freshly
      // started Chromium, then it fails the test.
      let result = await lighthouse(url, { ...options, port: chrome.port });
      for (let retry = 1; retry < 4 && result?.lhr.runtimeError; retry++) {
        chrome.kill();
        chrome = await launchChrome();
        result = await lighthouse(url, { ...options, port: chrome.port });
      }
      assert.ok(result, `Lighthouse ran on ${path}`);
      const { lhr } = result;
      assert.equal(lhr.runtimeError, undefined, `${path}: ${JSON.stringify(lhr.runtimeError)}`);
      const scores = Object.fromEntries(
        CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]),
      );
      const lost = Object.values(lhr.audits as Record<string, Audit>)
        .filter(
          (a) =>
            a.score !== null &&
            a.score < 1 &&
            (a.scoreDisplayMode === 'binary' || a.scoreDisplayMode === 'numeric'),
        )
        .map((a) => `${a.id} (${a.score}${a.displayValue ? `, ${a.displayValue}` : ''})`);
      const consoleErrors = (
        (
          lhr.audits['errors-in-console']?.details as
            { items?: Array<{ description?: string; sourceLocation?: { url?: string } }> } | undefined
        )?.items ?? []
      ).map((item) => `${item.description ?? ''} ${item.sourceLocation?.url ?? ''}`);
      if (consoleErrors.length > 0) lost.push(`console: ${consoleErrors.join(' | ')}`);
      return { scores, lost, audits: lhr.audits as Record<string, Audit> };
    }

    /** Only performance below 100, and only in timing metrics (load on the machine), never layout shift. */
    function mainThreadWobble(scores: Record<string, number>, lost: string[]): boolean {
      const timing =
        /^(first-contentful-paint|largest-contentful-paint|speed-index|interactive|total-blocking-time|max-potential-fid|[a-z-]+-insight) /;
      return (
        scores.performance !== 100 &&
        CATEGORIES.every((id) => id === 'performance' || scores[id] === 100) &&
        lost.every((line) => timing.test(line))
      );
    }

    it('home, post, category, tag and page, and home and post in zh_TW: 100 in every category', async () => {
      const pages = {
        home: site.paths.home,
        post: site.paths.post,
        category: site.paths.category,
        tag: site.paths.tag,
        page: site.paths.page,
        'home (zh_TW)': '/zh_TW/',
        'post (zh_TW)': `/zh_TW${site.paths.post}`,
      };
      const failures: string[] = [];
      for (const [name, path] of Object.entries(pages)) {
        // Lighthouse's simulated throttling multiplies the main thread's observed task times: on a
        // loaded 2-core machine a page with no script of its own can lose points in total blocking
        // time. Such a loss (every other category at 100, the loss in main-thread timing alone) is
        // reported below, not asserted, so the page is measured once: measuring it again changed no
        // verdict and cost CI up to four minutes.
        const { scores, lost } = await audit(path);
        console.log(
          `lighthouse ${name} ${path}: ${JSON.stringify(scores)}${lost.length ? `; lost: ${lost.join(', ')}` : ''}`,
        );
        for (const id of CATEGORIES) {
          if (scores[id] === 100) continue;
          // Timing alone: a figure of this machine's load, reported, not asserted (speed is measured
          // by bench/, never asserted as a wall-clock limit). Every other loss of performance
          // (render-blocking or uncached assets, image sizes, layout shift, console errors) still fails.
          if (id === 'performance' && mainThreadWobble(scores, lost)) {
            console.log(
              `lighthouse ${name}: performance ${scores[id]} from timing alone (machine load), not asserted`,
            );
            continue;
          }
          failures.push(`${name}: ${id} ${scores[id]} (${lost.join(', ')})`);
        }
      }
      assert.deepEqual(failures, []);
    });

    it('search results stay out of search engines (noindex), are described, and score 100 in accessibility and best practices', async () => {
      const { scores, audits, lost } = await audit(site.paths.search);
      assert.equal(audits['is-crawlable']?.score, 0, 'search results are marked noindex');
      for (const id of ['accessibility', 'best-practices'] as const) {
        assert.equal(scores[id], 100, `search: ${id}`);
      }
      // Performance: 100, or below only in timing metrics (machine load; see the test above).
      const timing =
        /^(first-contentful-paint|largest-contentful-paint|speed-index|interactive|total-blocking-time|max-potential-fid|[a-z-]+-insight) /;
      const otherLosses = lost.filter((line) => !timing.test(line) && !line.startsWith('is-crawlable '));
      assert.deepEqual(otherLosses, [], `search: performance ${scores.performance}`);
      console.log(`lighthouse search: ${JSON.stringify(scores)}`);
    });
  },
);
