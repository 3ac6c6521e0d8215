// Upload of a 5 MB image with its variants (issue 40, measures): time and peak RSS, on the S3 driver
// (a local S3-compatible server, s3rver, started here as the tests start it) and on the local disk for
// comparison. Generates JPEGs of random noise with sharp (so that they do not compress to nothing) of
// about --mb megabytes, a different one for each upload (Folio stores the same bytes once); the default
// 5 MB is under the default upload limit (setting `post_thumbnail_max_kb`, 5120 KB). Starts a built
// Folio server per driver (`dist/`, NODE_ENV=production, each on a seeded SQLite database of its own:
// one with STORAGE_URL on the bucket, one with MEDIA_DIR only) and uploads --uploads images to each
// through API v2 (`POST /api/v2/media`, multipart, the seeded admin's API key), the servers taking
// turns upload by upload so that both see the same machine. Each upload's time is the client's, from
// the first byte sent to the answer read (Folio reads the file, checks it with sharp, stores the
// original, a WebP copy and the smaller WebP sizes, and writes the rows). Peak RSS is the kernel's
// (VmHWM of /proc/PID/status) after start, before the first upload, and after the last.
// Writes its section of bench/RESULTS.md (between upload markers).
// Usage (run `npm run build` first): npx tsx bench/upload.ts [--uploads=10] [--mb=5] [--width=2500]
//   [--height=2000] [--drivers=s3,local] [--smoke] [--out=bench/RESULTS.md]
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { S3_CREDENTIALS, startLocalS3 } from '../test/support/s3.js';
import type { LocalS3 } from '../test/support/s3.js';
import { machineInfo, prepareDatabase } from './harness.js';
import { send } from './load.js';
import { sectionStamp, writeSection } from './report.js';
import { BENCH_HOSTS } from './seed.js';
import { procMemoryMb, startFolio } from './servers.js';
import type { ServerProcess } from './servers.js';

const { values } = parseArgs({
  options: {
    uploads: { type: 'string', default: '10' },
    mb: { type: 'string', default: '5' },
    width: { type: 'string', default: '2500' },
    height: { type: 'string', default: '2000' },
    drivers: { type: 'string', default: 's3,local' },
    smoke: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const UPLOADS = Number(values.uploads);
const TARGET_BYTES = Math.round(Number(values.mb) * 1_000_000);
const WIDTH = Number(values.width);
const HEIGHT = Number(values.height);
for (const [name, value] of Object.entries({ UPLOADS, TARGET_BYTES, WIDTH, HEIGHT })) {
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()} must be a positive number`);
}
type Driver = 's3' | 'local';
const DRIVERS = values.drivers.split(',').filter(Boolean) as Driver[];
if (DRIVERS.length === 0 || DRIVERS.some((driver) => driver !== 's3' && driver !== 'local')) {
  throw new Error('--drivers: s3, local or both (s3,local)');
}
/** Marked as a smoke run in RESULTS.md: asked for, or too few uploads to mean anything. */
const SMOKE = values.smoke || UPLOADS < 5;

/**
 * `count` JPEGs of random noise of `width` x `height`, each different (Folio stores files by their
 * content: the same bytes twice would be stored once), at the JPEG quality whose first image is the
 * largest under `target` bytes (full-resolution colour, 4:4:4, so that noise keeps its bytes).
 */
async function noiseJpegs(width: number, height: number, target: number, count: number) {
  const pixels = randomBytes(width * height * 3);
  const encode = (quality: number) =>
    sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality, chromaSubsampling: '4:4:4' })
      .toBuffer();
  let quality = 0;
  let low = 1;
  let high = 100;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    if ((await encode(middle)).length <= target) {
      quality = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (!quality)
    throw new Error(`no JPEG of ${width}x${height} noise is under ${target} bytes: ask for fewer pixels`);
  const images: Buffer[] = [];
  for (let k = 0; k < count; k++) {
    // A new first row of pixels tells the images apart (a change of a pixel or two may not survive
    // the JPEG quantization).
    if (k > 0) randomBytes(width * 3).copy(pixels, 0);
    images.push(await encode(quality));
  }
  const digests = new Set(images.map((image) => createHash('sha256').update(image).digest('hex')));
  if (digests.size !== images.length) throw new Error('two of the generated images are the same');
  return { quality, images };
}

/** A multipart/form-data body with one file in the field `files`, as a browser sends it. */
function multipart(data: Buffer, filename: string, type: string) {
  const boundary = `----folio${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\n` +
        `Content-Type: ${type}\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

interface UploadAnswer {
  status: number;
  ms: number;
  text: string;
}

/** One upload to API v2, timed from the request's start to the answer read whole. */
async function upload(
  base: string,
  token: string,
  file: { body: Buffer; contentType: string },
): Promise<UploadAnswer> {
  const started = performance.now();
  const answer = await send(
    base,
    {
      method: 'POST',
      path: '/api/v2/media',
      headers: {
        host: BENCH_HOSTS.uncached,
        authorization: `Bearer ${token}`,
        'content-type': file.contentType,
        'content-length': String(file.body.length),
      },
      body: file.body,
    },
    120_000,
  );
  return { status: answer.status, ms: performance.now() - started, text: answer.body.toString('utf8') };
}

interface DriverRun {
  driver: Driver;
  server: ServerProcess;
  token: string;
  /** The bucket, for the S3 driver: its requests are counted per upload. */
  s3?: LocalS3;
  times: number[];
  /** VmRSS after each upload, MB. */
  rss: Array<number | null>;
  s3Requests: number[];
  files: number;
  variants: string;
  peakBeforeMb: number | null;
  peakAfterMb: number | null;
  rssAfterMb: number | null;
}

const percentile = (list: number[], share: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? 0;
};
const mb = (value: number | null) => (value === null ? '–' : value.toFixed(0));
const ms = (value: number) => value.toFixed(0);

function section(
  runs: DriverRun[],
  info: { loadAverage: number[]; cores: number; cpuModel: string; bytes: [number, number]; quality: number },
): string {
  const command =
    `npx tsx bench/upload.ts --uploads=${UPLOADS} --mb=${values.mb} --width=${WIDTH} --height=${HEIGHT} ` +
    `--drivers=${DRIVERS.join(',')}`;
  const lines = [
    '<!-- upload:start -->',
    `## Upload of a ${values.mb} MB image with its variants (issue 40): time and peak RSS`,
    '',
    ...sectionStamp(
      command,
      info,
      SMOKE ? 'a check that the script works, with too few uploads for its figures to mean anything.' : null,
      `JPEGs of random noise, ${WIDTH}x${HEIGHT}, quality ${info.quality} (4:4:4), ` +
        `${info.bytes.map((n) => n.toLocaleString('en-US')).join('–')} bytes, a different one for each upload ` +
        `(Folio stores a file once by its content), ${UPLOADS} uploads one after the other through API v2 ` +
        '(`POST /api/v2/media`, multipart) to a built Folio (`dist/`, NODE_ENV=production, SQLite) per driver; ' +
        'the drivers take turns upload by upload. The S3 driver writes to s3rver on this machine (through the ' +
        "tests' small recording proxy): no network latency, so the S3 figures are Folio's own cost, not a real " +
        "bucket's. Time: the client's, from the request's first byte to the answer read. Peak RSS: VmHWM of the " +
        'Folio process (the kernel\u2019s high-water mark) after start and after the last upload._',
    ),
    '',
    '| Driver | Files stored per upload | Upload p50 / max ms | First upload ms | S3 requests per upload | Peak RSS MB: before the uploads → after | RSS after MB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (run) =>
        `| ${run.driver === 's3' ? 'S3 (s3rver)' : 'Local disk'} | ${run.files} (original, ${run.variants}) | ` +
        `${ms(percentile(run.times, 0.5))} / ${ms(Math.max(...run.times))} | ${ms(run.times[0] ?? 0)} | ` +
        `${run.s3 ? percentile(run.s3Requests, 0.5) : '–'} | ${mb(run.peakBeforeMb)} → ${mb(run.peakAfterMb)} | ` +
        `${mb(run.rssAfterMb)} |`,
    ),
    '',
    `Each upload's time, ms: ${runs.map((run) => `${run.driver} ${run.times.map(ms).join(', ')}`).join('; ')}. ` +
      `RSS after each upload, MB: ${runs.map((run) => `${run.driver} ${run.rss.map(mb).join(', ')}`).join('; ')}.`,
    '<!-- upload:end -->',
  ];
  return lines.join('\n');
}

async function main() {
  const machine = machineInfo();
  console.log(`load average at the start ${machine.loadAverage.join(' ')}`);
  // One image per upload and driver: each upload stores new files.
  const { quality, images } = await noiseJpegs(WIDTH, HEIGHT, TARGET_BYTES, UPLOADS * DRIVERS.length);
  const sizes = images.map((image) => image.length);
  console.log(
    `${images.length} images: ${WIDTH}x${HEIGHT} JPEG, quality ${quality}, ${Math.min(...sizes)}–${Math.max(...sizes)} bytes`,
  );
  const cleanUps: Array<() => Promise<unknown>> = [];
  const runs: DriverRun[] = [];
  try {
    for (const driver of DRIVERS) {
      // prepareDatabase reads no PostgreSQL or Redis URL for SQLite.
      const database = await prepareDatabase({ postgresUrl: '', redisUrl: '' }, 'sqlite', 20);
      cleanUps.push(() => database.drop());
      let s3: LocalS3 | undefined;
      if (driver === 's3') {
        s3 = await startLocalS3();
        const started = s3;
        cleanUps.push(() => started.close());
      }
      const server = await startFolio({
        mode: 'dist',
        databaseUrl: database.url,
        mediaDir: database.mediaDir,
        queryCounter: false,
        env: {
          ...(s3
            ? {
                STORAGE_URL: s3.storageUrl('bench-upload'),
                AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
                AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
              }
            : {}),
        },
      });
      cleanUps.push(() => server.stop());
      console.log(`${driver}: Folio pid ${server.pid} at ${server.url}`);
      runs.push({
        driver,
        server,
        token: database.seed.token,
        s3,
        times: [],
        rss: [],
        s3Requests: [],
        files: 0,
        variants: '',
        peakBeforeMb: procMemoryMb(server.pid, 'VmHWM'),
        peakAfterMb: null,
        rssAfterMb: null,
      });
    }
    let next = 0;
    for (let k = 1; k <= UPLOADS; k++) {
      for (const run of runs) {
        const file = multipart(images[next++]!, `noise-${k}.jpg`, 'image/jpeg');
        const s3Before = run.s3?.requests.length ?? 0;
        const answer = await upload(run.server.url, run.token, file);
        if (answer.status !== 201) {
          throw new Error(
            `${run.driver}: upload ${k} answered HTTP ${answer.status}: ${answer.text.slice(0, 300)}`,
          );
        }
        const item = (JSON.parse(answer.text) as { data: Array<{ variants: Array<{ name: string }> }> })
          .data[0];
        run.times.push(answer.ms);
        run.rss.push(procMemoryMb(run.server.pid, 'VmRSS'));
        run.s3Requests.push((run.s3?.requests.length ?? 0) - s3Before);
        run.files = 1 + (item?.variants.length ?? 0);
        run.variants = (item?.variants ?? []).map((variant) => variant.name).join(', ');
        console.log(
          `upload ${k} ${run.driver}: ${answer.ms.toFixed(0)} ms, RSS ${mb(run.rss.at(-1) ?? null)} MB` +
            (run.s3 ? `, ${run.s3Requests.at(-1)} S3 requests` : ''),
        );
      }
    }
    for (const run of runs) {
      run.peakAfterMb = procMemoryMb(run.server.pid, 'VmHWM');
      run.rssAfterMb = procMemoryMb(run.server.pid, 'VmRSS');
    }
    const text = section(runs, {
      loadAverage: machine.loadAverage,
      cores: machine.cpus,
      cpuModel: machine.cpuModel,
      bytes: [Math.min(...sizes), Math.max(...sizes)],
      quality,
    });
    writeSection(values.out, 'upload', text);
    console.log(`\n${text}\n\nwritten to ${values.out}`);
  } finally {
    for (const cleanUp of cleanUps.reverse()) await cleanUp().catch((error: unknown) => console.error(error));
  }
}

await main();
