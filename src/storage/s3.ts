// The S3-compatible driver (AWS S3, MinIO, Cloudflare R2, Backblaze B2, …) through the AWS SDK v3.
// Files go to `<prefix><path>` in one bucket; files larger than one part are sent as a multipart
// upload (@aws-sdk/lib-storage), a few parts at a time, so that a large file is never held whole.
// Credentials come from the SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile,
// an instance role).
// The SDK is loaded when an S3 store is first used (about a second of start-up otherwise, for every
// command, on installations that keep media on the disk).
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { encodePath, isSafePath, UnsafePathError } from './store.js';
import type { ByteRange, MediaStore, ObjectInfo, StoredObject } from './store.js';

/** Multipart part size: S3's smallest (5 MiB); files up to one part go in a single request. */
export const PART_SIZE = 5 * 1024 * 1024;
/** Parts in flight at once per upload. */
const PARTS_AT_ONCE = 2;

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix, empty or ending in `/`. */
  prefix: string;
  region: string;
  /** An S3-compatible server's URL (MinIO, R2…); none: AWS. */
  endpoint: string | null;
  /** `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key` (MinIO and most local servers). */
  forcePathStyle: boolean;
  /**
   * What a file's path is appended to for its URL: the app's `/media` (served through Folio), a CDN,
   * or the bucket's own public URL (see publicBucketUrl).
   */
  baseUrl: string;
  servedByApp: boolean;
  /** Explicit credentials (tests); none: the SDK's default chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The public URL of the bucket's prefix, as S3 answers anonymous reads of a public bucket. */
export function publicBucketUrl(
  options: Pick<S3StoreOptions, 'bucket' | 'prefix' | 'region' | 'endpoint' | 'forcePathStyle'>,
): string {
  const prefix = options.prefix === '' ? '' : `/${encodePath(options.prefix.replace(/\/$/, ''))}`;
  if (options.endpoint === null) {
    return `https://${options.bucket}.s3.${options.region}.amazonaws.com${prefix}`;
  }
  const endpoint = new URL(options.endpoint);
  const base = `${endpoint.protocol}//${endpoint.host}${endpoint.pathname.replace(/\/+$/, '')}`;
  if (options.forcePathStyle) return `${base}/${options.bucket}${prefix}`;
  return `${endpoint.protocol}//${options.bucket}.${endpoint.host}${prefix}`;
}

type Sdk = typeof S3Sdk;
let sdk: Promise<[Sdk, typeof LibStorage]> | null = null;
const loadSdk = () => (sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]));

/** A 404 of S3: NoSuchKey (GET), NotFound (HEAD). */
function missing(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

export class S3Store implements MediaStore {
  readonly disk = 's3';
  readonly location: string;
  readonly servedByApp: boolean;
  readonly baseUrl: string;
  private client: S3Client | null = null;

  constructor(private readonly options: S3StoreOptions) {
    this.baseUrl = options.baseUrl;
    this.location = `s3://${options.bucket}/${options.prefix}`;
    this.servedByApp = options.servedByApp;
  }

  private async sdk(): Promise<{
    client: S3Client;
    s3: Sdk;
    Upload: typeof LibStorage.Upload;
  }> {
    const [s3, storage] = await loadSdk();
    this.client ??= new s3.S3Client({
      region: this.options.region,
      ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
      forcePathStyle: this.options.forcePathStyle,
      ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
    });
    return { client: this.client, s3, Upload: storage.Upload };
  }

  private key(relativePath: string): string {
    if (!isSafePath(relativePath)) throw new UnsafePathError(relativePath);
    return `${this.options.prefix}${relativePath}`;
  }

  async put(relativePath: string, body: Buffer | Readable, contentType: string): Promise<void> {
    const key = this.key(relativePath);
    const { client, Upload } = await this.sdk();
    const upload = new Upload({
      client,
      params: {
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        // Names are content hashes: a file at a key never changes.
        CacheControl: 'public, max-age=31536000, immutable',
      },
      partSize: PART_SIZE,
      queueSize: PARTS_AT_ONCE,
      // A failed multipart upload is aborted, leaving no parts behind.
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async stat(relativePath: string): Promise<ObjectInfo | null> {
    const key = this.key(relativePath);
    const { client, s3 } = await this.sdk();
    try {
      const head = await client.send(new s3.HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return {
        size: head.ContentLength ?? 0,
        contentType: head.ContentType ?? 'application/octet-stream',
        modifiedAt: head.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async read(relativePath: string, range?: ByteRange): Promise<Readable | null> {
    const key = this.key(relativePath);
    const { client, s3 } = await this.sdk();
    try {
      const answer = await client.send(
        new s3.GetObjectCommand({
          Bucket: this.options.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async delete(relativePath: string): Promise<void> {
    const key = this.key(relativePath);
    const { client, s3 } = await this.sdk();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  async *list(): AsyncIterable<StoredObject> {
    const { client, s3 } = await this.sdk();
    let token: string | undefined;
    do {
      const page = await client.send(
        new s3.ListObjectsV2Command({
          Bucket: this.options.bucket,
          Prefix: this.options.prefix === '' ? undefined : this.options.prefix,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key || object.Key.endsWith('/')) continue;
        yield {
          path: object.Key.slice(this.options.prefix.length),
          size: object.Size ?? 0,
          modifiedAt: object.LastModified ?? new Date(0),
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  url(relativePath: string): string {
    return `${this.baseUrl}/${encodePath(relativePath)}`;
  }

  async close(): Promise<void> {
    this.client?.destroy();
    this.client = null;
  }
}
