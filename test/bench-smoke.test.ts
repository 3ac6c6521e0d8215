// The benchmark harness end to end, in smoke mode: tiny data, a few requests per route, Folio run from
// source. It checks that the harness works and writes well-formed results, never how fast anything is
// (benchmarks do not fail CI on speed). SQLite only: the PostgreSQL pass of `npm run test:slow` skips it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { BenchResults } from '../bench/harness.js';
import { parseOptions, run } from '../bench/run.js';
import type { SoakResults } from '../bench/soak.js';
import { usingPostgres } from './support/harness.js';

const skip = usingPostgres ? 'the harness smoke runs on the SQLite pass only' : false;

describe('benchmark harness (smoke)', { skip }, () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-smoke-'));
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  it('measures every route next to bare Fastify and writes RESULTS.md and JSON', async () => {
    const options = parseOptions(['--smoke', `--out=${out}`], {});
    options.bench.log = () => undefined;
    const { results } = await run(options);
    assert.ok(results);

    const json = JSON.parse(
      fs.readFileSync(path.join(out, 'results', 'latest.json'), 'utf8'),
    ) as BenchResults;
    assert.equal(json.mode, 'smoke');
    assert.equal(json.machine.cpus, os.cpus().length);
    assert.ok(!Number.isNaN(Date.parse(json.date)));
    const main = json.scenarios.find((s) => !s.growthOnly);
    assert.ok(main, 'a main scenario');
    assert.equal(main.error, undefined);
    assert.equal(main.dialect, 'sqlite');
    assert.deepEqual(
      main.routes.map((r) => r.id),
      [
        'api-list',
        'api-show',
        'api-list-token',
        'api-show-token',
        'api-v2-list',
        'api-v2-show',
        'api-tags',
        'home',
        'post-page',
        'post-page-nothing-cached',
        'post-page-cached',
        'sitemap',
        'sitemap-file',
      ],
    );
    for (const route of main.routes) {
      assert.notEqual(route.status, 'error', `${route.id}: ${route.reason}`);
      if (route.status === 'n/a') {
        assert.match(route.reason ?? '', /n\/a in this build/);
        continue;
      }
      assert.ok(route.folio && route.bare, route.id);
      assert.ok(route.folio.rps > 0 && route.bare.rps > 0, route.id);
      assert.equal(route.folio.errors, 0, route.id);
      assert.ok(Number.isFinite(route.ratio), route.id);
      assert.ok(route.bytes && route.bytes > 0, route.id);
      assert.equal(typeof route.queries, 'number', `${route.id}: queries from x-folio-queries`);
      assert.ok(
        (route.folio.cpuMs ?? -1) >= 0 && (route.bare.cpuMs ?? -1) >= 0,
        `${route.id}: CPU from /proc`,
      );
    }
    for (const id of [
      'api-list',
      'api-show',
      'api-tags',
      'home',
      'post-page-nothing-cached',
      'sitemap-file',
    ]) {
      assert.equal(main.routes.find((r) => r.id === id)?.status, 'ok', id);
    }
    // The growth check: the same routes at another size.
    const growth = json.scenarios.filter((s) => s.growthOnly);
    assert.ok(growth.length >= 1);
    assert.ok(growth.every((s) => s.error === undefined && s.posts !== main.posts));

    const markdown = fs.readFileSync(path.join(out, 'RESULTS.md'), 'utf8');
    assert.match(markdown, /^# Folio benchmark results/);
    assert.match(markdown, /\| Route \| Bytes \| Folio req\/s \| Bare req\/s \| Ratio \|/);
    assert.match(markdown, /\| CPU µs \/ request: Folio \/ bare \|/);
    assert.match(markdown, /## Growth check/);
    assert.match(markdown, /API post list \(page of 15\)/);
  });

  it('runs a soak with memory sampled', async () => {
    const options = parseOptions(['--smoke', '--soak', `--out=${out}`], {});
    options.bench.log = () => undefined;
    const { soak } = await run(options);
    assert.ok(soak);
    const json = JSON.parse(fs.readFileSync(path.join(out, 'results', 'soak.json'), 'utf8')) as SoakResults;
    assert.ok(json.requests > 0);
    assert.equal(json.errors, 0);
    assert.ok(json.memory.samples.length > 0);
    assert.ok(json.memory.peakMb !== null && json.memory.peakMb > 0);
    assert.match(fs.readFileSync(path.join(out, 'SOAK.md'), 'utf8'), /^# Folio soak test/);
  });
});
