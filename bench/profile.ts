// Summarizes a V8 CPU profile (node --cpu-prof; `npm run bench -- --cpu-prof=DIR` writes one of the
// measured Folio process): the functions and the files that used the most CPU time, by self time, and
// by total (inclusive) time for Folio's own functions.
// Usage: npx tsx bench/profile.ts <file.cpuprofile> [rows]
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function shortUrl(url: string): string {
  const text = url.replace(/^file:\/\//, '');
  const modules = text.lastIndexOf('node_modules/');
  if (modules >= 0) return text.slice(modules + 'node_modules/'.length);
  const dist = text.search(/\/(dist|src)\//);
  return dist >= 0 ? text.slice(dist + 1) : text || '(native)';
}

/** Folio's own code: dist/ or src/ of the project, not a dependency's dist/. */
const isFolio = (url: string) => !url.includes('node_modules') && /\/(dist|src)\//.test(url);

export function summarize(profile: CpuProfile, rows = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...self.values()].reduce((sum, value) => sum + value, 0);
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const label = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
  const selfByFunction = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, time] of self) {
    const node = byId.get(id);
    if (!node) continue;
    selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + time);
    const file = shortUrl(node.callFrame.url).split(':')[0] ?? '';
    selfByFile.set(file, (selfByFile.get(file) ?? 0) + time);
    // Inclusive time of Folio's own functions: every distinct ancestor in dist/ or src/ gets the sample.
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const ancestor = byId.get(current);
      if (!ancestor || !isFolio(ancestor.callFrame.url)) continue;
      const name = label(ancestor);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + time);
    }
  }
  const table = (title: string, entries: Map<string, number>) => [
    title,
    ...[...entries.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([name, time]) => `${((time / total) * 100).toFixed(1).padStart(6)}%  ${name}`),
    '',
  ];
  return [
    `total ${(total / 1e6).toFixed(1)} s of samples`,
    '',
    ...table('Self time by function:', selfByFunction),
    ...table('Self time by file:', selfByFile),
    ...table("Total time of Folio's functions:", inclusive),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npx tsx bench/profile.ts <file.cpuprofile> [rows]');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  console.log(summarize(profile, Number(process.argv[3] ?? 25)));
}
