// Writes benchmark results: a Markdown report for people, the raw numbers as JSON for tools.
import fs from 'node:fs';
import path from 'node:path';
import type { BenchResults, Dialect, RouteResult, ScenarioResult } from './harness.js';
import { cpuPerRequestUs } from './load.js';
import type { SoakResults } from './soak.js';

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const mb = (value: number | null | undefined) => (value == null ? '–' : value.toFixed(0));
const DIALECT_NAMES: Record<Dialect, string> = {
  sqlite: 'SQLite (in-process cache)',
  postgres: 'PostgreSQL + Redis',
};

/** Writes `text` to `file` through a temporary file, so a reader never sees half of it. */
export function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

function machineLine(results: { date: string; machine: BenchResults['machine'] }): string {
  const { machine } = results;
  return (
    `Run of ${results.date.slice(0, 16).replace('T', ' ')} UTC on ${machine.cpus} CPU cores (${machine.cpuModel}), ` +
    `${(machine.memoryMb / 1024).toFixed(0)} GB RAM, ${machine.platform}, Node.js ${machine.node}; ` +
    `load average at the start ${machine.loadAverage.join(' ')}.`
  );
}

function loadLine(results: BenchResults): string {
  const { settings } = results;
  const phase =
    settings.amount !== undefined
      ? `${settings.amount} requests per measurement (smoke run: figures mean nothing)`
      : `${settings.seconds} s per measurement (in ${settings.rounds} rounds, Folio and bare taking turns) after ${settings.warmupSeconds} s of warm-up` +
        (settings.growthSeconds ? ` (growth check: ${settings.growthSeconds} s)` : '');
  const server =
    settings.server === 'dist'
      ? 'Folio runs compiled (`dist/`, NODE_ENV=production, LOG_LEVEL=warn) in a process of its own'
      : 'Folio runs from source through tsx in a process of its own';
  return `autocannon over loopback, ${settings.connections} connections, ${phase}. ${server}; the bare Fastify baseline runs in another.`;
}

function goalCell(route: RouteResult): string {
  if (route.goal === undefined) return '';
  if (route.ratio === undefined) return `≥ ${route.goal}`;
  return `≥ ${route.goal} ${route.ratio >= route.goal ? '✓' : '✗'}`;
}

function routeRow(route: RouteResult): string {
  const name = `${route.label} \`${route.method} ${route.path}\``;
  if (route.status !== 'ok' || !route.folio || !route.bare) {
    const why = route.reason ?? route.status;
    const queries = route.status === 'n/a' ? '–' : (route.queries ?? '–');
    const bytes = route.status === 'n/a' || !route.bytes ? '–' : int(route.bytes);
    return `| ${name} | ${bytes} | ${why} | | | ${goalCell(route)} | | | ${queries} | |`;
  }
  return [
    '',
    ` ${name} `,
    ` ${int(route.bytes ?? 0)} `,
    ` ${int(route.folio.rps)} `,
    ` ${int(route.bare.rps)} `,
    ` **${(route.ratio ?? 0).toFixed(2)}** `,
    ` ${goalCell(route)} `,
    ` ${route.folio.p50} / ${route.folio.p99} `,
    ` ${route.bare.p50} / ${route.bare.p99} `,
    ` ${route.queries ?? '–'}${route.coldQueries != null && route.coldQueries !== route.queries ? ` (cold ${route.coldQueries})` : ''} `,
    ` ${cpuCell(route)} `,
    ` ${mb(route.folio.peakRssMb)} `,
    '',
  ].join('|');
}

/** The servers' CPU time per request (user + system from /proc), where it was measured. */
function cpuCell(route: RouteResult): string {
  if (!route.folio || !route.bare) return '–';
  const folio = cpuPerRequestUs(route.folio);
  const bare = cpuPerRequestUs(route.bare);
  if (folio === null || bare === null) return '–';
  return `${Math.round(folio)} / ${Math.round(bare)}`;
}

function scenarioSection(scenario: ScenarioResult): string[] {
  const lines = [`## ${DIALECT_NAMES[scenario.dialect]}, ${int(scenario.posts)} posts`, ''];
  if (scenario.error) lines.push(`**The scenario failed:** ${scenario.error}`, '');
  lines.push(
    '| Route | Bytes | Folio req/s | Bare req/s | Ratio | Goal | Folio p50 / p99 ms | Bare p50 / p99 ms | SQL queries / request | CPU µs / request: Folio / bare | Folio peak RSS MB |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
    ...scenario.routes.map(routeRow),
    '',
    `Seeded in ${scenario.seedSeconds ?? '–'} s. Peak RSS (VmHWM) over the whole scenario: Folio ${mb(scenario.folioPeakRssMb)} MB, ` +
      `bare Fastify ${mb(scenario.barePeakRssMb)} MB.`,
    '',
  );
  return lines;
}

function growthSection(results: BenchResults): string[] {
  const scenarios = results.scenarios.filter((s) => !s.error);
  const sizes = [...new Set(scenarios.filter((s) => s.growthOnly).map((s) => s.posts))];
  if (sizes.length === 0) return [];
  const allSizes = [...new Set([...sizes, ...scenarios.map((s) => s.posts)])].sort((a, b) => a - b);
  const lines = [
    '## Growth check',
    '',
    `The same requests with ${allSizes.map(int).join(' / ')} posts: flat rows mean the cost of a request does not ` +
      'grow with the data. Each cell: Folio req/s (ratio to bare Fastify), p99 latency, SQL queries per request.',
    '',
    `| Database | Route | ${allSizes.map((size) => `${int(size)} posts`).join(' | ')} |`,
    `| --- | --- | ${allSizes.map(() => '---').join(' | ')} |`,
  ];
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const ofDialect = scenarios.filter((s) => s.dialect === dialect);
    const growthIds = new Set(
      ofDialect.filter((s) => s.growthOnly).flatMap((s) => s.routes.map((r) => r.id)),
    );
    for (const id of growthIds) {
      const cells = allSizes.map((size) => {
        const route = ofDialect.find((s) => s.posts === size)?.routes.find((r) => r.id === id);
        if (!route) return '';
        if (route.status !== 'ok' || !route.folio) return route.reason ?? route.status;
        return `${int(route.folio.rps)} (${(route.ratio ?? 0).toFixed(2)}×), p99 ${route.folio.p99} ms, ${route.queries ?? '?'} SQL`;
      });
      const label = ofDialect.flatMap((s) => s.routes).find((r) => r.id === id)?.label ?? id;
      lines.push(`| ${DIALECT_NAMES[dialect]} | ${label} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('');
  return lines;
}

export function resultsMarkdown(results: BenchResults): string {
  const lines = [
    '# Folio benchmark results',
    '',
    '_Written by `npm run bench` (see "Benchmarks" in the README). Raw numbers: `results/latest.json`._',
    '',
    machineLine(results),
    loadLine(results),
    '',
    'Every Folio figure stands next to a bare Fastify server answering a body of the same bytes and content ' +
      'type, measured in the same run: **ratio** = Folio req/s ÷ bare req/s (the median of the rounds), the share of raw Fastify speed ' +
      'that Folio keeps. Ratios hold on a noisy machine where absolute numbers do not. SQL queries per ' +
      'request come from `x-folio-queries` (FOLIO_QUERY_COUNTER=1) in a separate probing run; "cold" is the ' +
      'first request after start. **CPU µs / request** is the CPU time (user + system, from /proc) each server ' +
      'used during its measured rounds, divided by the requests it answered: where the load generator, not the ' +
      'server, sets the pace (ratios near 1), this column still shows what a request costs the server.',
    '',
  ];
  for (const scenario of results.scenarios.filter((s) => !s.growthOnly))
    lines.push(...scenarioSection(scenario));
  lines.push(...growthSection(results));
  const failed = results.scenarios.filter((s) => s.growthOnly && s.error);
  for (const scenario of failed) lines.push(`Growth scenario ${scenario.id} failed: ${scenario.error}`, '');
  lines.push(`Total run time: ${int(results.totalSeconds)} s.`, '');
  return lines.join('\n');
}

export function writeResults(outDir: string, results: BenchResults): { markdown: string; json: string } {
  const markdown = path.join(outDir, 'RESULTS.md');
  const json = path.join(outDir, 'results', 'latest.json');
  // Sections measured apart (bench/scale.ts, the large-site measures by hand) between
  // <!-- name:start --> and <!-- name:end -->: kept as they are.
  const previous = fs.existsSync(markdown) ? fs.readFileSync(markdown, 'utf8') : '';
  const kept = [...previous.matchAll(/<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->\n?/g)].map((m) => m[0]);
  writeAtomically(
    markdown,
    [resultsMarkdown(results).trimEnd(), ...kept.map((section) => section.trimEnd())].join('\n\n') + '\n',
  );
  writeAtomically(json, `${JSON.stringify(results, null, 2)}\n`);
  return { markdown, json };
}

export function soakMarkdown(soak: SoakResults): string {
  const lines = [
    '# Folio soak test',
    '',
    '_Written by `npm run bench:soak` (see "Benchmarks" in the README). Raw numbers: `results/soak.json`._',
    '',
    machineLine(soak),
    '',
    `${DIALECT_NAMES[soak.dialect]}, ${int(soak.posts)} posts, ${soak.connections} connections, ` +
      `${(soak.seconds / 60).toFixed(1)} minutes of mixed traffic cycling through: ${soak.mix.join(', ')}.`,
    '',
    `| Requests | Req/s | p50 / p99 ms | Failed | RSS after warm-up MB | RSS at the end MB | Peak RSS MB | Trend over the second half |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${int(soak.requests)} | ${int(soak.rps)} | ${soak.p50} / ${soak.p99} | ${int(soak.errors)} | ${mb(soak.memory.startMb)} | ` +
      `${mb(soak.memory.endMb)} | ${mb(soak.memory.peakMb)} | ${soak.memory.slopeMbPerMinute.toFixed(2)} MB/min |`,
    '',
    'RSS of the Folio process, sampled every few seconds (average per interval):',
    '',
    '| Minute | RSS MB |',
    '| ---: | ---: |',
    ...soak.memory.perMinute.map((point) => `| ${point.minute.toFixed(1)} | ${point.rssMb.toFixed(1)} |`),
    '',
  ];
  return lines.join('\n');
}

export function writeSoak(outDir: string, soak: SoakResults): { markdown: string; json: string } {
  const markdown = path.join(outDir, 'SOAK.md');
  const json = path.join(outDir, 'results', 'soak.json');
  writeAtomically(markdown, soakMarkdown(soak));
  writeAtomically(json, `${JSON.stringify(soak, null, 2)}\n`);
  return { markdown, json };
}

/**
 * Writes `section` (which starts with `<!-- name:start -->` and ends with `<!-- name:end -->`) into the
 * Markdown file: in place of the section of that name, or at the end when there is none yet. The rest
 * of the file is kept as it is.
 */
export function writeSection(file: string, name: string, section: string): void {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const pattern = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
  const text = section.trim();
  writeAtomically(
    file,
    pattern.test(current) ? current.replace(pattern, () => text) : `${current.trimEnd()}\n\n${text}\n`,
  );
}

/**
 * The head of a section written by a script: a "smoke run" warning when it is one, and the italic line
 * saying which command wrote it, when, on what machine and under what load.
 */
export function sectionStamp(
  command: string,
  machine: { cores: number; cpuModel: string; loadAverage: number[] },
  smoke: string | null,
  /** The rest of the italic paragraph: what was measured and how (ends with `_`). */
  method: string,
): string[] {
  return [
    ...(smoke ? [`**Smoke run: ${smoke}**`, ''] : []),
    `_Written by \`${command}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC ` +
      `(${machine.cores} CPU cores, ${machine.cpuModel}; load average at the start ${machine.loadAverage.join(' ')}; ` +
      `other work may have been running on the machine). ${method}`,
  ];
}
