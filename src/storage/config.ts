// STORAGE_URL: which driver holds media, read into a StorageConfig, and the store made from it.
//   (unset)                     the local disk, MEDIA_DIR (default ./data/media)
//   local:./path, file:///path  the local disk at that directory
//   s3://bucket/prefix?region=eu-west-1&endpoint=http://127.0.0.1:9000&force_path_style=1&public=1
// File URLs: MEDIA_BASE_URL when set (a CDN in front of the storage); else the bucket's own public URL
// with `public=1`; else `${APP_URL}/media/…`, which Folio serves from the driver (with ranges).
import path from 'node:path';
import { LocalStore } from './local.js';
import { publicBucketUrl, S3Store } from './s3.js';
import type { S3StoreOptions } from './s3.js';
import type { MediaStore } from './store.js';

export type StorageConfig =
  | { driver: 'local'; dir: string }
  | {
      driver: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint: string | null;
      forcePathStyle: boolean;
      /** URLs are the bucket's public URL. */
      publicBucket: boolean;
    };

/** A STORAGE_URL that cannot be used; the message names what is wrong, never a secret. */
export class StorageUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageUrlError';
  }
}

const S3_OPTIONS = new Set(['region', 'endpoint', 'force_path_style', 'public']);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function flag(name: string, value: string): boolean {
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new StorageUrlError(`${name} must be 1 or 0, got "${value}"`);
}

/**
 * Reads a STORAGE_URL (null or empty: the local disk at `mediaDir`). `env` gives AWS_REGION and
 * AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL where the URL names none.
 */
export function parseStorageUrl(
  url: string | null | undefined,
  mediaDir: string,
  env: Record<string, string | undefined> = process.env,
): StorageConfig {
  const value = url?.trim() ?? '';
  if (value === '' || value === 'local:') return { driver: 'local', dir: path.resolve(mediaDir) };
  if (value.startsWith('local:')) return { driver: 'local', dir: path.resolve(value.slice('local:'.length)) };
  if (value.startsWith('file:')) {
    const rest = value.slice('file:'.length);
    const dir = rest.startsWith('//') ? decodeURIComponent(new URL(value).pathname) : rest;
    if (dir === '') throw new StorageUrlError(`"${value}" names no directory`);
    return { driver: 'local', dir: path.resolve(dir) };
  }
  if (!value.startsWith('s3://')) {
    throw new StorageUrlError(`"${value.replace(/\?.*$/, '')}" must start with s3://, local: or file:`);
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new StorageUrlError(`"${value.replace(/\?.*$/, '')}" is not a valid URL`);
  }
  if (parsed.username || parsed.password) {
    throw new StorageUrlError(
      'credentials do not belong in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  }
  const bucket = parsed.hostname;
  if (!BUCKET.test(bucket)) {
    throw new StorageUrlError(
      `"${bucket}" is not a bucket name (3-63 lower-case letters, digits, dots, hyphens)`,
    );
  }
  const prefixPath = decodeURIComponent(parsed.pathname).replace(/^\/+/, '').replace(/\/+$/, '');
  if (prefixPath.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new StorageUrlError(`the prefix "${prefixPath}" may not contain . or .. segments`);
  }
  for (const key of parsed.searchParams.keys()) {
    if (!S3_OPTIONS.has(key)) {
      throw new StorageUrlError(`unknown option "${key}" (known: ${[...S3_OPTIONS].join(', ')})`);
    }
  }
  const endpoint =
    parsed.searchParams.get('endpoint') || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || null;
  if (endpoint !== null) {
    let endpointUrl: URL;
    try {
      endpointUrl = new URL(endpoint);
    } catch {
      throw new StorageUrlError(`endpoint "${endpoint}" is not a valid URL`);
    }
    if (endpointUrl.protocol !== 'http:' && endpointUrl.protocol !== 'https:') {
      throw new StorageUrlError(`endpoint "${endpoint}" must be an http:// or https:// URL`);
    }
  }
  const forcePathStyle = parsed.searchParams.has('force_path_style')
    ? flag('force_path_style', parsed.searchParams.get('force_path_style')!)
    : false;
  const publicBucket = parsed.searchParams.has('public')
    ? flag('public', parsed.searchParams.get('public')!)
    : false;
  return {
    driver: 's3',
    bucket,
    prefix: prefixPath === '' ? '' : `${prefixPath}/`,
    region: parsed.searchParams.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    endpoint,
    forcePathStyle,
    publicBucket,
  };
}

/** A StorageConfig for messages (no secrets are in it). */
export function describeStorage(config: StorageConfig): string {
  return config.driver === 'local' ? config.dir : `s3://${config.bucket}/${config.prefix}`;
}

export interface StoreUrls {
  /** MEDIA_BASE_URL: a CDN (or any server) that answers `${base}/${path}`; null: none. */
  mediaBaseUrl: string | null;
}

/** The driver a StorageConfig names. `credentials`: explicit S3 keys (tests); else the SDK's chain. */
export function createStore(
  config: StorageConfig,
  urls: StoreUrls,
  options: { credentials?: S3StoreOptions['credentials'] } = {},
): MediaStore {
  // Served by the app: the site-relative address (domain/media/urls.ts), right on every host it answers.
  const appMedia = '/media';
  const cdn = urls.mediaBaseUrl?.replace(/\/+$/, '') ?? null;
  if (config.driver === 'local') {
    return new LocalStore(config.dir, cdn ?? appMedia, { servedByApp: cdn === null });
  }
  const baseUrl = cdn ?? (config.publicBucket ? publicBucketUrl(config) : appMedia);
  return new S3Store({
    ...config,
    baseUrl,
    servedByApp: baseUrl === appMedia,
    credentials: options.credentials,
  });
}
