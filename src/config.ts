// Reads the environment once into a typed, validated Config. A bad value throws a ConfigError whose
// message is one line naming the variable; the CLI prints it and exits.
import net from 'node:net';
import path from 'node:path';
import { isValidPackageName } from './domain/system/updates.js';
import { parseStorageUrl, StorageUrlError } from './storage/config.js';
import type { StorageConfig } from './storage/config.js';

export type DatabaseConfig =
  | { dialect: 'sqlite'; url: string; file: string } // file is ':memory:' for an in-memory database
  | { dialect: 'postgres'; url: string };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  database: DatabaseConfig;
  redisUrl: string | null;
  host: string;
  port: number;
  /** Public base URL, without a trailing slash. */
  appUrl: string;
  mediaDir: string;
  /** STORAGE_URL read: where media files live; null (unset) is the local disk at mediaDir. */
  storage: StorageConfig | null;
  /** MEDIA_BASE_URL: a CDN (or other server) in front of the storage that file URLs point at; null: none. */
  mediaBaseUrl: string | null;
  logLevel: LogLevel;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** `smtp://` or `smtps://` URL of the mail server; null: mail is written to the log instead. */
  smtpUrl: string | null;
  /** MAIL_FROM: the From address of mail Folio sends; null: `no-reply@` the website's primary domain. */
  mailFrom: string | null;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (rate limits, hashed IPs):
   * false (none, the default), a number of hops, or the proxies' addresses and CIDR ranges.
   */
  trustProxy: false | number | string[];
  /** CACHE_MEMORY_MB: the memory budget of every in-process cache together (cache/memory-budget.ts). */
  cacheMemoryMb: number;
  /** FOLIO_QUERY_COUNTER=1: count SQL queries per request into `x-folio-queries` (benchmarks). */
  queryCounter: boolean;
  /**
   * JOB_LEASE_SECONDS: how long a node holds a background job it claimed; a job of a node that died
   * (even by kill -9) is taken over by another once its lease lapses (jobs/queue.ts). Default 300.
   */
  jobLeaseSeconds: number;
  /**
   * FOLIO_RELEASE_PACKAGE: the npm package whose versions are this installation's releases (the update
   * check asks the registry for its newest). None by default: the name `folio` on npm is someone
   * else's package, so without it the newest version is "not known" rather than a stranger's.
   */
  releasePackage: string | null;
  /**
   * NODE_ENV is not `production`: pages may tell the operator things meant for them (that a mail
   * without SMTP_URL went to the log).
   */
  development: boolean;
  /**
   * Sitemap files: URLs (every locale's) per file, default URLS_PER_FILE; posts read per query while
   * a file is written. Tests set small ones.
   */
  sitemap?: { urlsPerFile?: number; rowsPerQuery?: number };
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid ${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const CONFIG_DEFAULTS = {
  DATABASE_URL: 'sqlite:./data/folio.sqlite',
  HOST: '127.0.0.1',
  PORT: '3000',
  MEDIA_DIR: './data/media',
  LOG_LEVEL: 'info',
  BODY_LIMIT: '10485760',
} as const;

type Env = Record<string, string | undefined>;

function read(env: Env, name: keyof typeof CONFIG_DEFAULTS): string {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? CONFIG_DEFAULTS[name] : value;
}

export function parseDatabaseUrl(url: string, variable = 'DATABASE_URL'): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '')
      throw new ConfigError(variable, `"${url}" names no file (use sqlite:./data/folio.sqlite)`);
    return { dialect: 'sqlite', url, file: file === ':memory:' ? file : path.resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError(variable, `"${redact(url)}" is not a valid URL`);
    }
    return { dialect: 'postgres', url };
  }
  throw new ConfigError(variable, `"${redact(url)}" must start with sqlite: or postgres://`);
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65535) {
    throw new ConfigError('PORT', `"${value}" is not a port number (1-65535)`);
  }
  return Number(value);
}

function parseHttpUrl(variable: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(variable, `"${value}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(variable, `"${value}" must be an http:// or https:// URL`);
  }
  return value.replace(/\/+$/, '');
}

/** Hides the password of a connection URL so it can be printed. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

function parseTrustProxy(raw: string | undefined): false | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(false|0|off|no)$/i.test(value)) return false;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(
        'TRUST_PROXY',
        `"${entry}" is not an IP address or CIDR range (give a number of hops, or addresses separated by commas)`,
      );
    }
  }
  return entries;
}

export function loadConfig(env: Env = process.env): Config {
  const database = parseDatabaseUrl(read(env, 'DATABASE_URL'));

  const redisRaw = env.REDIS_URL?.trim();
  let redisUrl: string | null = null;
  if (redisRaw) {
    if (!/^rediss?:\/\/[^/]/.test(redisRaw)) {
      throw new ConfigError('REDIS_URL', `"${redact(redisRaw)}" must be a redis:// or rediss:// URL`);
    }
    redisUrl = redisRaw;
  }

  const host = read(env, 'HOST');
  const port = parsePort(read(env, 'PORT'));

  const appUrlRaw = env.APP_URL?.trim();
  const displayHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const appUrl = appUrlRaw ? parseHttpUrl('APP_URL', appUrlRaw) : `http://${displayHost}:${port}`;

  const logLevel = read(env, 'LOG_LEVEL') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `"${logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  }

  const bodyLimitRaw = read(env, 'BODY_LIMIT');
  if (!/^\d+$/.test(bodyLimitRaw) || Number(bodyLimitRaw) < 1024) {
    throw new ConfigError('BODY_LIMIT', `"${bodyLimitRaw}" is not a number of bytes (at least 1024)`);
  }

  const smtpRaw = env.SMTP_URL?.trim();
  let smtpUrl: string | null = null;
  if (smtpRaw) {
    if (!/^smtps?:\/\/[^/]/.test(smtpRaw)) {
      throw new ConfigError('SMTP_URL', `"${redact(smtpRaw)}" must be an smtp:// or smtps:// URL`);
    }
    try {
      new URL(smtpRaw);
    } catch {
      throw new ConfigError('SMTP_URL', `"${redact(smtpRaw)}" is not a valid URL`);
    }
    smtpUrl = smtpRaw;
  }
  const mailFrom = env.MAIL_FROM?.trim() || null;
  if (
    mailFrom !== null &&
    (mailFrom.length > 320 || /[\r\n]/.test(mailFrom) || !/@[^\s@>]+>?$/.test(mailFrom))
  ) {
    throw new ConfigError(
      'MAIL_FROM',
      `${JSON.stringify(mailFrom)} is not an email address (Name <user@host> or user@host)`,
    );
  }

  const cacheMemoryRaw = env.CACHE_MEMORY_MB?.trim() || '232';
  if (!/^\d{1,6}$/.test(cacheMemoryRaw) || Number(cacheMemoryRaw) < 16) {
    throw new ConfigError('CACHE_MEMORY_MB', `"${cacheMemoryRaw}" is not a number of MiB (at least 16)`);
  }

  const jobLeaseRaw = env.JOB_LEASE_SECONDS?.trim() || '300';
  if (!/^\d{1,5}$/.test(jobLeaseRaw) || Number(jobLeaseRaw) < 2 || Number(jobLeaseRaw) > 86_400) {
    throw new ConfigError('JOB_LEASE_SECONDS', `"${jobLeaseRaw}" is not a number of seconds from 2 to 86400`);
  }

  const releasePackage = env.FOLIO_RELEASE_PACKAGE?.trim() || null;
  if (releasePackage !== null && !isValidPackageName(releasePackage)) {
    throw new ConfigError('FOLIO_RELEASE_PACKAGE', `"${releasePackage}" is not an npm package name`);
  }

  const mediaDir = path.resolve(read(env, 'MEDIA_DIR'));
  const storageRaw = env.STORAGE_URL?.trim() || null;
  let storage: StorageConfig | null = null;
  if (storageRaw !== null) {
    try {
      storage = parseStorageUrl(storageRaw, mediaDir, env);
    } catch (error) {
      if (error instanceof StorageUrlError) throw new ConfigError('STORAGE_URL', error.message);
      throw error;
    }
  }
  const mediaBaseRaw = env.MEDIA_BASE_URL?.trim();
  const mediaBaseUrl = mediaBaseRaw ? parseHttpUrl('MEDIA_BASE_URL', mediaBaseRaw) : null;

  return {
    database,
    redisUrl,
    host,
    port,
    appUrl,
    mediaDir,
    storage,
    mediaBaseUrl,
    logLevel,
    bodyLimit: Number(bodyLimitRaw),
    smtpUrl,
    mailFrom,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    cacheMemoryMb: Number(cacheMemoryRaw),
    queryCounter: env.FOLIO_QUERY_COUNTER?.trim() === '1',
    jobLeaseSeconds: Number(jobLeaseRaw),
    releasePackage,
    development: env.NODE_ENV?.trim() !== 'production',
  };
}
